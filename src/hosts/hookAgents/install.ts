/**
 * Puts Loop Sentinel's hook into Claude Code's, the Copilot CLI's and Codex's settings, and takes
 * it out again leaving every file as it was. Plain Node: `loop-sentinel hooks`, the extension's
 * commands and its uninstall script share it.
 *
 * Where each agent reads hooks (checked with the real CLIs, see test/fixtures/hook-agents/):
 * - Claude Code: `settings.json` in `$CLAUDE_CONFIG_DIR` (default `~/.claude`) or a project's
 *   `.claude/settings.json`; the VS Code extension bundles the same CLI and reads the same files.
 *   `PreToolUse` / `PostToolUse` entries are merged beside the user's own.
 * - Copilot CLI: every `*.json` in `$COPILOT_HOME/hooks` (default `~/.copilot/hooks`), or a
 *   repository's `.github/hooks/` (run only in a folder the user trusted): ours is a file of its own.
 * - Codex: `hooks.json` in `$CODEX_HOME` (default `~/.codex`), Claude's format; `config.toml` is
 *   never touched. Codex runs a hook only once the user trusts it (its hooks review, or
 *   `--dangerously-bypass-hook-trust`).
 * - Gemini CLI: `settings.json` in `$GEMINI_CLI_HOME/.gemini` (GEMINI_CLI_HOME stands for the home
 *   folder; default `~/.gemini`) or a project's `.gemini/settings.json` (run in a trusted folder
 *   only): Claude's format under its own event names (`BeforeTool`, `AfterTool`, and `BeforeAgent`
 *   to tell a new prompt), timeouts in milliseconds.
 * - Qwen Code: `settings.json` in `$QWEN_HOME` (default `~/.qwen`) or a project's
 *   `.qwen/settings.json`: Claude's format, plus `PostToolUseFailure` (a failed call reports there
 *   instead of PostToolUse).
 *
 * A file that does not parse is left alone and reported. What a file held before the first
 * install is recorded (installs.json in Loop Sentinel's own folder); uninstall puts those bytes
 * back when the file is still as we left it, and otherwise takes out only our entries.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { writeFileAtomic } from "../atomicFile";
import * as os from "node:os";
import * as path from "node:path";
import { isRecord } from "../../engine/json";
import { copilotHome } from "./agentHomes";
import { AGENT_LABELS, type AgentName } from "./dialect";

/** The installed copy of dist/agent-hook.js: its name marks every command as ours. */
export const INSTALLED_SCRIPT = "loop-sentinel-agent-hook.js";
const RECORDS = "hook-installs.json";
/** Below every agent's own limit (Claude 60 s, Copilot 30 s, Codex 60 s, Qwen 60 s); the hook answers in 5 s at most. */
const TIMEOUT_S = 30;

export type InstallState = "installed" | "absent" | "unreadable" | "changed";
export interface InstallReport { agent: AgentName; file: string; state: InstallState; detail: string }

/** Loop Sentinel's own folder for the installed hook script and the install records. */
export function loopSentinelHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOOP_SENTINEL_HOME) return env.LOOP_SENTINEL_HOME;
  const home = env.HOME || os.homedir();
  if (process.platform === "win32") return path.join(env.LOCALAPPDATA || path.join(home, "AppData", "Local"), "loop-sentinel");
  return path.join(env.XDG_DATA_HOME || path.join(home, ".local", "share"), "loop-sentinel");
}

export { copilotHome };

/** The settings file Loop Sentinel's hook goes into for this agent, user-wide or for one project. */
export function hookFileFor(agent: AgentName, project: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || os.homedir();
  switch (agent) {
    case "claude": return project ? path.join(project, ".claude", "settings.json") : path.join(env.CLAUDE_CONFIG_DIR || path.join(home, ".claude"), "settings.json");
    case "copilot": return project ? path.join(project, ".github", "hooks", "loop-sentinel.json") : path.join(copilotHome(env), "hooks", "loop-sentinel.json");
    case "codex": return project ? path.join(project, ".codex", "hooks.json") : path.join(env.CODEX_HOME || path.join(home, ".codex"), "hooks.json");
    case "gemini": return path.join(project ?? (env.GEMINI_CLI_HOME || home), ".gemini", "settings.json");
    case "qwen": return project ? path.join(project, ".qwen", "settings.json") : path.join(env.QWEN_HOME || path.join(home, ".qwen"), "settings.json");
  }
}

/** What each agent needs before it runs the installed hook. */
export function trustNote(agent: AgentName, project: boolean): string {
  switch (agent) {
    case "claude": return project ? "Claude Code runs project hooks once the folder is trusted (with -p, at once)." : "Claude Code runs it in every session (CLI and VS Code extension).";
    case "copilot": return project ? "Copilot runs repository hooks only in a trusted folder (--trust-folder, or trust it when asked)." : "Copilot runs it in every session.";
    case "codex": return "Codex runs a hook only once you trust it (review it in Codex's hooks list, or pass --dangerously-bypass-hook-trust).";
    case "gemini": return project ? "Gemini CLI runs project hooks only in a trusted folder." : "Gemini CLI runs it in every session (unless hooksConfig.enabled is false).";
    case "qwen": return project ? "Qwen Code runs it in sessions started in that folder." : "Qwen Code runs it in every session.";
  }
}

const quote = (s: string) => (process.platform === "win32" ? `"${s}"` : `'${s.replace(/'/g, `'\\''`)}'`);

/** The command an agent runs; `runtime` is a Node binary (an editor's own runtime gets ELECTRON_RUN_AS_NODE). */
export function hookCommand(runtime: string, script: string, agent: AgentName, point: string | undefined, configFile?: string): string {
  const electron = !/(^|[\\/])node(\.exe)?$/i.test(runtime);
  const parts = [quote(runtime), quote(script), agent];
  if (point) parts.push(point);
  if (configFile) parts.push("--config", quote(configFile));
  return `${electron ? "ELECTRON_RUN_AS_NODE=1 " : ""}${parts.join(" ")}`;
}

function isOurs(command: unknown): boolean {
  return typeof command === "string" && command.includes(INSTALLED_SCRIPT);
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

interface Record_ { file: string; agent: AgentName; original: string | null; written: string; createdDirs: string[] }

function recordsFile(env: NodeJS.ProcessEnv): string { return path.join(loopSentinelHome(env), RECORDS); }

function readRecords(env: NodeJS.ProcessEnv): Record_[] {
  return readRecordsIfReadable(env) ?? [];
}

/** The install records; undefined when the file is missing or cannot be read (nothing then proves no hook is left). */
function readRecordsIfReadable(env: NodeJS.ProcessEnv): Record_[] | undefined {
  try {
    const doc: unknown = JSON.parse(fs.readFileSync(recordsFile(env), "utf8"));
    return Array.isArray(doc) ? doc.filter((r): r is Record_ => isRecord(r) && typeof r.file === "string" && typeof r.written === "string") : undefined;
  } catch { return undefined; }
}

/**
 * Once the records say no hook of ours is left anywhere, Loop Sentinel's own copies of the hook
 * program and the records themselves go too, and its folder if nothing else is in it. With records
 * that cannot be read, nothing is removed: some agent may still run the copy.
 */
function removeOwnCopiesIfLastGone(env: NodeJS.ProcessEnv): void {
  const records = readRecordsIfReadable(env);
  if (records === undefined || records.length > 0) return;
  const home = loopSentinelHome(env);
  for (const name of [INSTALLED_SCRIPT, INSTALLED_SCRIPT.replace(/\.js$/, "-engine.js"), RECORDS]) fs.rmSync(path.join(home, name), { force: true });
  try { fs.rmdirSync(home); } catch { /* other files of Loop Sentinel's are there: the folder stays with them */ }
}

function writeRecords(env: NodeJS.ProcessEnv, records: Record_[]): void {
  const file = recordsFile(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, Buffer.from(JSON.stringify(records, null, 2) + "\n"), 0o600);
}


/** The indentation a JSON text uses (kept when we write it back). */
function indentOf(text: string): string | number {
  const m = /^\{\s*\n([ \t]+)"/.exec(text);
  return m ? m[1] : 2;
}

type HookEntry = { matcher?: string; hooks: { type: string; command: string; timeout: number }[] };

/** The entries our hook needs in a Claude-format `hooks` object (Claude Code, Codex, Gemini CLI, Qwen Code). */
function claudeFormatEntries(agent: AgentName, command: string): Record<string, HookEntry[]> {
  const entry = (timeout = TIMEOUT_S): HookEntry => ({ matcher: "*", hooks: [{ type: "command", command, timeout }] });
  // Gemini counts in milliseconds; its BeforeAgent (once per prompt) tells the hook the user spoke.
  if (agent === "gemini") return { BeforeTool: [entry(TIMEOUT_S * 1000)], AfterTool: [entry(TIMEOUT_S * 1000)], BeforeAgent: [entry(TIMEOUT_S * 1000)] };
  if (agent === "qwen") return { PreToolUse: [entry()], PostToolUse: [entry()], PostToolUseFailure: [entry()] };
  return { PreToolUse: [entry()], PostToolUse: [entry()] };
}

/** A Claude-format document without our entries (events left empty are removed, other keys kept). */
function withoutOurs(doc: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(doc.hooks)) return doc;
  const hooks: Record<string, unknown> = {};
  for (const [event, list] of Object.entries(doc.hooks)) {
    if (!Array.isArray(list)) { hooks[event] = list; continue; }
    const kept = list.filter((e) => !(isRecord(e) && Array.isArray(e.hooks) && e.hooks.some((h) => isRecord(h) && isOurs(h.command))));
    if (kept.length > 0 || list.length === 0) hooks[event] = kept;
  }
  const out = { ...doc };
  if (Object.keys(hooks).length === 0 && Object.keys(doc.hooks).length > 0) delete out.hooks;
  else out.hooks = hooks;
  return out;
}

function hasOurs(doc: unknown): boolean {
  if (!isRecord(doc) || !isRecord(doc.hooks)) return false;
  return Object.values(doc.hooks).some((list) => Array.isArray(list) && list.some((e) =>
    isRecord(e) && (isOurs(e.bash) || isOurs(e.command) || (Array.isArray(e.hooks) && e.hooks.some((h) => isRecord(h) && isOurs(h.command))))));
}

/** Our whole document for Copilot (a file of its own in its hooks folder). */
function copilotDocument(runtime: string, script: string, configFile?: string): Record<string, unknown> {
  const entry = (point: string) => [{ type: "command", bash: hookCommand(runtime, script, "copilot", point, configFile), timeoutSec: TIMEOUT_S }];
  return { version: 1, hooks: { preToolUse: entry("pre"), postToolUse: entry("post"), permissionRequest: entry("permission") } };
}

export interface AgentInstallOptions {
  agent: AgentName;
  /** A project folder; user-wide when absent. */
  project?: string;
  /** dist/agent-hook.js of this Loop Sentinel (copied into Loop Sentinel's own folder). */
  script: string;
  /** The Node to run it with. */
  runtime?: string;
  /** Engine settings for the headless hook (a JSON file; `{"mode":"warnOnly"}` and the like). */
  configFile?: string;
  env?: NodeJS.ProcessEnv;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try { const v: unknown = JSON.parse(text.replace(/^\uFEFF/, "")); return isRecord(v) ? v : undefined; } catch { return undefined; }
}

/** Adds the hook to the agent's settings (or refreshes it); the user's own entries stay as they are. */
export function installAgentHook(o: AgentInstallOptions): InstallReport {
  const env = o.env ?? process.env;
  const file = hookFileFor(o.agent, o.project, env);
  const label = AGENT_LABELS[o.agent];
  const before = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  const text = before?.toString("utf8");
  const doc = text === undefined || text.trim() === "" ? {} : parseObject(text);
  if (!doc) return { agent: o.agent, file, state: "unreadable", detail: `${file} is not a JSON object Loop Sentinel can read; left it alone (fix it, then install again)` };

  // The hook script lives in Loop Sentinel's own folder, so that it outlives the extension's version folder.
  const home = loopSentinelHome(env);
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const script = path.join(home, INSTALLED_SCRIPT);
  writeFileAtomic(script, fs.readFileSync(o.script), 0o644);
  // Its engine bundle beside it (loaded only when no running Loop Sentinel answers).
  const engine = o.script.replace(/\.js$/, "-engine.js");
  if (fs.existsSync(engine)) writeFileAtomic(script.replace(/\.js$/, "-engine.js"), fs.readFileSync(engine), 0o644);
  const runtime = o.runtime ?? process.execPath;

  let next: Record<string, unknown>;
  if (o.agent === "copilot") next = copilotDocument(runtime, script, o.configFile);
  else {
    next = withoutOurs(doc);
    const hooks = isRecord(next.hooks) ? { ...next.hooks } : {};
    for (const [event, entries] of Object.entries(claudeFormatEntries(o.agent, hookCommand(runtime, script, o.agent, undefined, o.configFile)))) {
      hooks[event] = [...(Array.isArray(hooks[event]) ? hooks[event] as unknown[] : []), ...entries];
    }
    next = { ...next, hooks };
  }
  const trailing = text === undefined || text.endsWith("\n") ? "\n" : "";
  const data = Buffer.from(JSON.stringify(next, null, text ? indentOf(text) : 2) + trailing);

  const records = readRecords(env);
  const earlier = records.find((r) => r.file === file);
  const createdDirs: string[] = [];
  for (let d = path.dirname(file); !fs.existsSync(d); d = path.dirname(d)) createdDirs.push(d);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (before && before.equals(data)) { /* already as it should be */ } else writeFileAtomic(file, data);
  if (earlier && before && sha(before) !== earlier.written) {
    // Changed by the user since our install: what to put back is their file without our entries.
    earlier.original = Buffer.from(JSON.stringify(withoutOurs(doc), null, indentOf(text ?? "")) + trailing).toString("base64");
  }
  if (earlier) earlier.written = sha(data);
  else records.push({ file, agent: o.agent, original: before ? before.toString("base64") : null, written: sha(data), createdDirs });
  writeRecords(env, records);
  const verb = hasOurs(doc) ? "refreshed" : "installed";
  return { agent: o.agent, file, state: "installed", detail: `${verb} Loop Sentinel's hook for ${label} in ${file}. ${trustNote(o.agent, o.project !== undefined)}` };
}

/** Takes the hook out: the file as it was before the install when nobody changed it since, else only our entries. */
export function uninstallAgentHook(agent: AgentName, project: string | undefined, env: NodeJS.ProcessEnv = process.env): InstallReport {
  const report = uninstallFile(hookFileFor(agent, project, env), agent, env);
  removeOwnCopiesIfLastGone(env);
  return report;
}

function uninstallFile(file: string, agent: AgentName, env: NodeJS.ProcessEnv): InstallReport {
  const label = AGENT_LABELS[agent];
  const records = readRecords(env);
  const i = records.findIndex((r) => r.file === file);
  const record = i >= 0 ? records[i] : undefined;
  const now = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  const forget = () => { if (i >= 0) { records.splice(i, 1); writeRecords(env, records); } };
  if (!now) { forget(); return { agent, file, state: "absent", detail: `no ${label} hook settings at ${file}` }; }
  if (record && sha(now) === record.written) {
    if (record.original === null) {
      fs.rmSync(file, { force: true });
      for (const d of record.createdDirs) { try { fs.rmdirSync(d); } catch { break; } }
    } else writeFileAtomic(file, Buffer.from(record.original, "base64"));
    forget();
    return { agent, file, state: "absent", detail: `removed Loop Sentinel's hook for ${label}: ${file} is back as it was` };
  }
  const text = now.toString("utf8");
  const doc = parseObject(text);
  if (!doc) return { agent, file, state: "unreadable", detail: `${file} is not a JSON object Loop Sentinel can read; left it alone` };
  if (!hasOurs(doc)) { forget(); return { agent, file, state: "absent", detail: `Loop Sentinel's hook is not in ${file}` }; }
  if (agent === "copilot" && path.basename(file) === "loop-sentinel.json") fs.rmSync(file, { force: true });
  else writeFileAtomic(file, Buffer.from(JSON.stringify(withoutOurs(doc), null, indentOf(text)) + (text.endsWith("\n") ? "\n" : "")));
  forget();
  return { agent, file, state: "absent", detail: `removed Loop Sentinel's hook for ${label} from ${file}; your changes made since the install are kept` };
}

export function agentHookStatus(agent: AgentName, project: string | undefined, env: NodeJS.ProcessEnv = process.env): InstallReport {
  const file = hookFileFor(agent, project, env);
  const label = AGENT_LABELS[agent];
  if (!fs.existsSync(file)) return { agent, file, state: "absent", detail: `Loop Sentinel's hook for ${label} is not installed (${file} does not exist)` };
  const doc = parseObject(fs.readFileSync(file, "utf8"));
  if (!doc) return { agent, file, state: "unreadable", detail: `${file} is not a JSON object Loop Sentinel can read` };
  if (!hasOurs(doc)) return { agent, file, state: "absent", detail: `Loop Sentinel's hook for ${label} is not installed in ${file}` };
  const script = path.join(loopSentinelHome(env), INSTALLED_SCRIPT);
  if (!fs.existsSync(script)) return { agent, file, state: "changed", detail: `${file} runs Loop Sentinel's hook, but ${script} is missing: every call passes unguarded (install again)` };
  return { agent, file, state: "installed", detail: `Loop Sentinel's hook for ${label} is installed in ${file}. ${trustNote(agent, project !== undefined)}` };
}

/** Every install this Loop Sentinel made, undone (the extension's uninstall script). */
export function uninstallAllAgentHooks(env: NodeJS.ProcessEnv = process.env): InstallReport[] {
  const out = readRecords(env).map((r) => uninstallFile(r.file, r.agent, env));
  removeOwnCopiesIfLastGone(env);
  return out;
}
