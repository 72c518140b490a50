/**
 * Points an agent's model endpoint at the extension's stream guard, and puts it back: the one
 * setting each agent reads its endpoint from, edited in place and nothing else of the file.
 * - Claude Code (CLI and VS Code extension): `env.ANTHROPIC_BASE_URL` in `settings.json` of
 *   `$CLAUDE_CONFIG_DIR` (default `~/.claude`).
 * - Codex: `base_url` of the provider `model_provider` names, in `$CODEX_HOME/config.toml`
 *   (default `~/.codex`): only a provider of the user's that has a `base_url` line (OpenAI's own
 *   provider has no setting for its endpoint).
 * - The Copilot CLI takes its own provider's endpoint (BYOK) from an environment variable only
 *   (`COPILOT_PROVIDER_BASE_URL`): no file to edit; the extension sets it for VS Code's terminals.
 *
 * What the file held before is recorded (stream-guard-pointings.json in Loop Sentinel's own
 * folder) with the endpoint it named, which becomes the guard's upstream. Putting it back writes
 * those bytes again when the file is still as we left it; when someone changed it since, only our
 * value is put back to what it was, and the rest of their change stays. A window records itself
 * as the owner: another window's guard is left alone, and a pointing whose window is gone (VS Code
 * crashed) is put back at the next start. Plain Node: the uninstall script uses it too.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { writeFileAtomic } from "../atomicFile";
import { isRecord } from "../../engine/json";
import { loopSentinelHome } from "../hookAgents/install";

export type PointedAgent = "claude" | "codex";
export const POINTED_AGENTS: readonly PointedAgent[] = ["claude", "codex"];
export const POINTED_LABELS: Record<PointedAgent, string> = { claude: "Claude Code", codex: "Codex" };

const RECORDS = "stream-guard-pointings.json";
/** Where Claude Code goes when nothing names another endpoint. */
export const ANTHROPIC_DEFAULT = "https://api.anthropic.com";

export type PointState = "pointed" | "restored" | "absent" | "unreadable" | "not-configured" | "left";
export interface PointReport {
  agent: PointedAgent;
  file: string;
  state: PointState;
  /** One plain sentence for the log and the user. */
  detail: string;
  /** Where the agent's requests went before: the guard's upstream ("pointed"). */
  upstream?: string;
}

interface PointRecord {
  agent: PointedAgent;
  file: string;
  /** The file's bytes before the first pointing (base64), or null: there was no file. */
  original: string | null;
  /** sha256 of what we wrote last. */
  written: string;
  /** The endpoint the agent used before (the guard's upstream). */
  upstream: string;
  /** The value the file held before, or null: it named none (put back when only our value is undone). */
  previous: string | null;
  /** The guard URL we wrote. */
  guardUrl: string;
  /** The process (an extension host) whose guard that is. */
  owner: number;
  createdDirs: string[];
}

export function pointedFileFor(agent: PointedAgent, env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || os.homedir();
  return agent === "claude"
    ? path.join(env.CLAUDE_CONFIG_DIR || path.join(home, ".claude"), "settings.json")
    : path.join(env.CODEX_HOME || path.join(home, ".codex"), "config.toml");
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const recordsFile = (env: NodeJS.ProcessEnv) => path.join(loopSentinelHome(env), RECORDS);

function readRecords(env: NodeJS.ProcessEnv): PointRecord[] {
  try {
    const doc: unknown = JSON.parse(fs.readFileSync(recordsFile(env), "utf8"));
    return Array.isArray(doc) ? doc.filter((r): r is PointRecord => isRecord(r) && typeof r.file === "string" && typeof r.written === "string" && typeof r.upstream === "string" && (r.agent === "claude" || r.agent === "codex")) : [];
  } catch { return []; }
}

function writeRecords(env: NodeJS.ProcessEnv, records: PointRecord[]): void {
  const file = recordsFile(env);
  if (records.length === 0) { fs.rmSync(file, { force: true }); return; }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, Buffer.from(JSON.stringify(records, null, 2) + "\n"), 0o600);
}

/** Whether a process is still running (the owner of a pointing). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === "EPERM"; }
}

// ---- Claude Code: settings.json `env.ANTHROPIC_BASE_URL` ----

function parseObject(text: string): Record<string, unknown> | undefined {
  try { const v: unknown = JSON.parse(text.replace(/^\uFEFF/, "")); return isRecord(v) ? v : undefined; } catch { return undefined; }
}

function indentOf(text: string): string | number {
  const m = /^\{\s*\n([ \t]+)"/.exec(text);
  return m ? m[1] : 2;
}

/** A JSON edit of `env.ANTHROPIC_BASE_URL`: the value before, and the text with `next` (undefined: taken out). */
function claudeEdit(text: string | undefined, next: string | undefined): { previous: string | null; data: Buffer } | { error: string } {
  const doc = text === undefined || text.trim() === "" ? {} : parseObject(text);
  if (!doc) return { error: "is not a JSON object Loop Sentinel can read" };
  if (doc.env !== undefined && !isRecord(doc.env)) return { error: "has an `env` that is not an object" };
  const env = isRecord(doc.env) ? { ...doc.env } : {};
  const before = env.ANTHROPIC_BASE_URL;
  const previous = typeof before === "string" ? before : null;
  if (next === undefined) delete env.ANTHROPIC_BASE_URL; else env.ANTHROPIC_BASE_URL = next;
  const out: Record<string, unknown> = { ...doc };
  if (Object.keys(env).length === 0 && doc.env === undefined) delete out.env; else out.env = env;
  const trailing = text === undefined || text.endsWith("\n") ? "\n" : "";
  return { previous, data: Buffer.from(JSON.stringify(out, null, text ? indentOf(text) : 2) + trailing) };
}

// ---- Codex: config.toml, the chosen provider's `base_url` line ----

interface TomlSpot { provider: string; line: number; value: string; quote: string }

/** Finds `base_url` of the provider `model_provider` names (the few lines that matter, not a TOML parser). */
function codexSpot(text: string): TomlSpot | { error: string } {
  const lines = text.split("\n");
  let section = "";
  let provider: string | undefined;
  const spots = new Map<string, TomlSpot>();
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, "").replace(/\s+#.*$/, "").trim();
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) { section = header[1].replace(/"/g, "").replace(/\s*\.\s*/g, "."); return; }
    const kv = /^([A-Za-z0-9_.-]+)\s*=\s*(["'])([^"']*)\2$/.exec(line);
    if (!kv) return;
    if (section === "" && kv[1] === "model_provider") provider = kv[3];
    const m = /^model_providers\.(.+)$/.exec(section);
    if (m && kv[1] === "base_url") spots.set(m[1], { provider: m[1], line: i, value: kv[3], quote: kv[2] });
  });
  if (!provider) return { error: "names no model_provider of yours (Codex then uses OpenAI's own endpoint, which has no setting to point)" };
  const spot = spots.get(provider);
  if (!spot) return { error: `has no base_url for the provider "${provider}" (only a provider of yours with a base_url can be pointed)` };
  return spot;
}

function codexWith(text: string, spot: TomlSpot, value: string): Buffer {
  const lines = text.split("\n");
  const old = lines[spot.line];
  const q = spot.quote;
  // Only the quoted value changes: the key, spacing and any comment stay.
  lines[spot.line] = old.replace(new RegExp(`(base_url\\s*=\\s*)${q}[^${q}]*${q}`), (_m, head: string) => `${head}${q}${value}${q}`);
  return Buffer.from(lines.join("\n"));
}

// ---- pointing and putting back ----

/** Where the agent's requests go now, by its file and (Claude Code) the environment; a pointing of ours is seen through. */
export function currentUpstream(agent: PointedAgent, env: NodeJS.ProcessEnv = process.env): { upstream?: string; detail: string } {
  const file = pointedFileFor(agent, env);
  const record = readRecords(env).find((r) => r.file === file);
  let text: string | undefined;
  try { text = fs.readFileSync(file, "utf8"); } catch { text = undefined; }
  if (agent === "claude") {
    const doc = text === undefined || text.trim() === "" ? {} : parseObject(text);
    if (!doc) return { detail: `${file} is not a JSON object Loop Sentinel can read` };
    const inFile = isRecord(doc.env) && typeof doc.env.ANTHROPIC_BASE_URL === "string" ? doc.env.ANTHROPIC_BASE_URL : undefined;
    if (record && inFile === record.guardUrl) return { upstream: record.upstream, detail: "pointed at a guard" };
    return { upstream: inFile ?? env.ANTHROPIC_BASE_URL ?? ANTHROPIC_DEFAULT, detail: inFile ? `from ${file}` : env.ANTHROPIC_BASE_URL ? "from ANTHROPIC_BASE_URL" : "Anthropic's own endpoint" };
  }
  if (text === undefined) return { detail: `${file} does not exist (Codex then uses OpenAI's own endpoint, which has no setting to point)` };
  const spot = codexSpot(text);
  if ("error" in spot) return { detail: `${file} ${spot.error}` };
  if (record && spot.value === record.guardUrl) return { upstream: record.upstream, detail: "pointed at a guard" };
  return { upstream: spot.value, detail: `provider "${spot.provider}" in ${file}` };
}

/**
 * Points the agent at `guardUrl`. The endpoint it used before is returned as `upstream` (kept from
 * the first pointing when the file still holds an earlier guard's URL of ours).
 */
export function pointAgentAt(agent: PointedAgent, guardUrl: string, env: NodeJS.ProcessEnv = process.env, owner = process.pid): PointReport {
  const file = pointedFileFor(agent, env);
  const label = POINTED_LABELS[agent];
  let before: Buffer | undefined;
  try { before = fs.readFileSync(file); } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") return { agent, file, state: "unreadable", detail: `could not read ${file}: ${(err as Error).message}; left it alone` };
  }
  const text = before?.toString("utf8");
  const records = readRecords(env);
  const earlier = records.find((r) => r.file === file);
  let data: Buffer;
  let previous: string | null;
  if (agent === "claude") {
    const edit = claudeEdit(text, guardUrl);
    if ("error" in edit) return { agent, file, state: "unreadable", detail: `${file} ${edit.error}; left it alone (fix it, then turn the stream guard on again)` };
    data = edit.data;
    previous = edit.previous;
  } else {
    if (text === undefined) return { agent, file, state: "not-configured", detail: `${label}: ${file} does not exist, so Codex uses OpenAI's own endpoint, which has no setting to point; nothing changed (use \`loop-sentinel run -- codex\`)` };
    const spot = codexSpot(text);
    if ("error" in spot) return { agent, file, state: "not-configured", detail: `${label}: ${file} ${spot.error}; nothing changed` };
    data = codexWith(text, spot, guardUrl);
    previous = spot.value;
  }
  // The endpoint before: an earlier guard's URL of ours is not one (its record knows the real one).
  const ours = earlier && (previous === earlier.guardUrl || (before !== undefined && sha(before) === earlier.written));
  const upstream = ours ? earlier.upstream : agent === "claude" ? previous ?? env.ANTHROPIC_BASE_URL ?? ANTHROPIC_DEFAULT : previous!;
  if (/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{24}(\.|\/|$)/.test(upstream)) {
    return { agent, file, state: "left", detail: `${label} points at a stream guard Loop Sentinel has no record of (${file}); left it alone` };
  }
  const createdDirs: string[] = [];
  for (let d = path.dirname(file); !fs.existsSync(d); d = path.dirname(d)) createdDirs.push(d);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!(before && before.equals(data))) writeFileAtomic(file, data);
  if (earlier && ours) {
    Object.assign(earlier, { written: sha(data), guardUrl, owner });
  } else {
    const fresh: PointRecord = { agent, file, original: before ? before.toString("base64") : null, written: sha(data), upstream, previous, guardUrl, owner, createdDirs };
    if (earlier) records.splice(records.indexOf(earlier), 1, fresh); else records.push(fresh);
  }
  writeRecords(env, records);
  return { agent, file, state: "pointed", upstream, detail: `${label}'s requests now go through the stream guard (${file}), on to ${safeOrigin(upstream)}` };
}

/**
 * Puts the agent's endpoint back. `owner`: only a pointing of this process, or of one that is gone
 * ("any": whoever's, the uninstall script and the start's clean-up of windows gone).
 */
export function restoreAgent(agent: PointedAgent, env: NodeJS.ProcessEnv = process.env, owner: number | "any" = process.pid): PointReport {
  const file = pointedFileFor(agent, env);
  const label = POINTED_LABELS[agent];
  const records = readRecords(env);
  const i = records.findIndex((r) => r.file === file);
  if (i < 0) return { agent, file, state: "absent", detail: `${label} was not pointed at the stream guard` };
  const record = records[i];
  if (owner !== "any" && record.owner !== owner && processAlive(record.owner)) {
    return { agent, file, state: "left", detail: `${label} is pointed at the stream guard of another VS Code window (process ${record.owner}); left as it is` };
  }
  const forget = () => { records.splice(i, 1); writeRecords(env, records); };
  let now: Buffer | undefined;
  try { now = fs.readFileSync(file); } catch { now = undefined; }
  if (!now) { forget(); return { agent, file, state: "restored", detail: `${file} is gone; nothing to put back` }; }
  if (sha(now) === record.written) {
    if (record.original === null) {
      fs.rmSync(file, { force: true });
      for (const d of record.createdDirs) { try { fs.rmdirSync(d); } catch { break; } }
    } else writeFileAtomic(file, Buffer.from(record.original, "base64"));
    forget();
    return { agent, file, state: "restored", detail: `${label}'s endpoint is back as it was (${file})` };
  }
  // Changed since: only our value goes back, if it is still there.
  const text = now.toString("utf8");
  if (agent === "claude") {
    const doc = parseObject(text);
    const value = doc && isRecord(doc.env) ? doc.env.ANTHROPIC_BASE_URL : undefined;
    if (!doc) return { agent, file, state: "unreadable", detail: `${file} is not a JSON object Loop Sentinel can read any more; left it alone (its env.ANTHROPIC_BASE_URL may still name the stream guard)` };
    if (value === record.guardUrl) {
      const edit = claudeEdit(text, record.previous ?? undefined);
      if ("error" in edit) return { agent, file, state: "unreadable", detail: `${file} ${edit.error}; left it alone` };
      writeFileAtomic(file, edit.data);
    }
  } else {
    const spot = codexSpot(text);
    if (!("error" in spot) && spot.value === record.guardUrl) writeFileAtomic(file, codexWith(text, spot, record.previous ?? record.upstream));
  }
  forget();
  return { agent, file, state: "restored", detail: `${label}'s endpoint is back to ${safeOrigin(record.previous ?? record.upstream)} in ${file}; your other changes since are kept` };
}

/** The pointings recorded now (status, the extension's start). */
export function pointings(env: NodeJS.ProcessEnv = process.env): Array<{ agent: PointedAgent; file: string; owner: number; upstream: string; ownerAlive: boolean }> {
  return readRecords(env).map((r) => ({ agent: r.agent, file: r.file, owner: r.owner, upstream: r.upstream, ownerAlive: processAlive(r.owner) }));
}

/** Puts back every pointing whose window is gone (a crash) or, with `all`, every one (uninstall). */
export function restoreOrphans(env: NodeJS.ProcessEnv = process.env, all = false): PointReport[] {
  return readRecords(env).filter((r) => all || !processAlive(r.owner)).map((r) => restoreAgent(r.agent, env, "any"));
}

/** Scheme, host and port only: a base URL's path may carry a token. */
export function safeOrigin(url: string): string {
  try { return new URL(url).origin; } catch { return "(an endpoint that is not a URL)"; }
}
