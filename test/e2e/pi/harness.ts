/**
 * Runs the real pi (`@mariozechner/pi-coding-agent`, pinned; installed into the ignored
 * `.tmp/pi-e2e/` on first use) in RPC mode against the scripted fake model, with a loop guard
 * installed the way pi users install one (`pi install <package folder>`), or none. Each run gets
 * its own workspace, HOME and pi agent folder (`PI_CODING_AGENT_DIR`): nothing touches the
 * machine's own settings. The recipe is the one verified in ../shared/hosts/more-agents.
 *
 * RPC mode, not print mode: print mode exits when a run ends, so a cut response could never be
 * resumed there. The driver sends one prompt and waits until pi has been idle (no run, nothing
 * queued) for a moment, since a guard may start a turn of its own after the first run ends.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { FakeModel, type Step } from "./fakeModel";

export const REPO = path.resolve(__dirname, "../../../..");
export const PI_VERSION = "0.73.1";
const PI_ROOT = path.join(REPO, ".tmp", "pi-e2e");
export const RUNS_ROOT = path.join(PI_ROOT, "runs");
const FIXTURES = path.join(REPO, "test", "fixtures", "pi-extension");

/** Installs pi once (about 15 s here); later runs reuse it. */
export function ensurePi(): string {
  const prefix = path.join(PI_ROOT, `pi-${PI_VERSION}`);
  const pkg = path.join(prefix, "node_modules", "@mariozechner", "pi-coding-agent", "package.json");
  if (!(fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, "utf8")).version === PI_VERSION)) {
    fs.mkdirSync(prefix, { recursive: true });
    execFileSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", `@mariozechner/pi-coding-agent@${PI_VERSION}`], { stdio: "inherit" });
  }
  return path.join(prefix, "node_modules", ".bin", "pi");
}

/** A loop guard to run pi with: a pi package folder to `pi install`, or nothing (the baseline). */
export interface Guard { name: string; packageDir?: string }

export const LOOP_SENTINEL: Guard = { name: "Loop Sentinel", packageDir: REPO };
export const NO_GUARD: Guard = { name: "no guard" };

export interface RunOptions {
  /** Loop Sentinel's settings file (`LOOP_SENTINEL_CONFIG`), e.g. `{"mode":"warnOnly"}`. */
  settings?: Record<string, unknown>;
  /** RPC commands sent once the prompt's work is over (e.g. a `/loop-sentinel status` prompt). */
  after?: Record<string, unknown>[];
  prompt?: string;
  /** Extra files in the workspace. */
  files?: Record<string, string>;
  /** Keep no fixture of this run under `RECORD_PI_FIXTURES=1` (its commands are not in the trace, so a replay would mislead). */
  noFixture?: boolean;
}

export interface RunResult {
  model: FakeModel;
  /** Every JSON line pi printed (events, responses, extension UI requests). */
  out: Record<string, unknown>[];
  stderr: string;
  code: number | null;
  dir: string;
  ws: string;
  /** Loop Sentinel's report lines (its own account; tests check the model's requests instead). */
  report: Record<string, unknown>[];
  /** The session file pi wrote. */
  session: string;
  ms: number;
}

/** The workspace each scenario starts from: a failing test to fix, a file to read, a log to page. */
function makeWorkspace(ws: string, files: Record<string, string> = {}): void {
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, "calc.js"), "exports.add = (a, b) => a - b;\n");
  fs.writeFileSync(path.join(ws, "test.js"), "const { add } = require('./calc');\nif (add(2, 3) !== 5) { console.error('FAIL add(2,3)=' + add(2, 3)); process.exit(1); }\nconsole.log('ok');\n");
  fs.writeFileSync(path.join(ws, "big.log"), Array.from({ length: 400 }, (_, i) => `line ${i + 1}: event ${(i * 7919) % 1000}`).join("\n") + "\n");
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(ws, name), text);
  execFileSync("git", ["init", "-q"], { cwd: ws });
}

function findFiles(dir: string, match: RegExp): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(p, match)); else if (match.test(p)) out.push(p);
  }
  return out;
}

/** Runs pi on one scripted session with the guard; what the model got and what pi printed come back. */
export async function runPi(guard: Guard, name: string, steps: Step[], o: RunOptions = {}): Promise<RunResult> {
  const bin = ensurePi();
  const dir = path.join(RUNS_ROOT, `${guard.name.replace(/\W+/g, "-").toLowerCase()}-${name}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const ws = path.join(dir, "ws");
  makeWorkspace(ws, o.files);
  const home = path.join(dir, "home");
  const agentDir = path.join(dir, "pi-agent");
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(agentDir, { recursive: true });
  const model = new FakeModel(steps);
  await model.start();
  fs.writeFileSync(path.join(agentDir, "models.json"), JSON.stringify({
    providers: {
      fake: {
        baseUrl: `http://127.0.0.1:${model.port}/v1`, api: "openai-completions", apiKey: "fake-key",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: "fake-model", reasoning: true }],
      },
    },
  }, null, 2));
  const env: NodeJS.ProcessEnv = {
    ...process.env, HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_SKIP_VERSION_CHECK: "1", PI_OFFLINE: "1", NO_COLOR: "1",
    XDG_CONFIG_HOME: path.join(home, ".config"), XDG_STATE_HOME: path.join(home, ".local", "state"),
    LOOP_SENTINEL_PI_REPORT: path.join(dir, "loop-sentinel-report.jsonl"), LOOP_SENTINEL_PI_TRACE: path.join(dir, "loop-sentinel-trace.jsonl"),
  };
  if (o.settings) {
    env.LOOP_SENTINEL_CONFIG = path.join(dir, "loop-sentinel-settings.json");
    fs.writeFileSync(env.LOOP_SENTINEL_CONFIG, JSON.stringify(o.settings));
  }
  // Installed as a user does it: pi writes the package's path into its settings.json.
  if (guard.packageDir) execFileSync(bin, ["install", guard.packageDir], { cwd: ws, env, stdio: "pipe", timeout: 120_000 });
  const started = Date.now();
  const child = spawn("nice", ["-n", "5", bin, "--mode", "rpc", "--model", "fake/fake-model"], { cwd: ws, env, stdio: ["pipe", "pipe", "pipe"] });
  const out: Record<string, unknown>[] = [];
  let stderr = "";
  let buffer = "";
  child.stdout!.on("data", (d: Buffer) => {
    buffer += d.toString("utf8");
    let i: number;
    while ((i = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, i).replace(/\r$/, "");
      buffer = buffer.slice(i + 1);
      try { out.push(JSON.parse(line)); } catch { /* not JSON */ }
    }
  });
  child.stderr!.on("data", (d) => { stderr += d; });
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const send = (cmd: Record<string, unknown>) => child.stdin!.write(JSON.stringify(cmd) + "\n");
  try {
    send({ id: "p1", type: "prompt", message: o.prompt ?? "Fix the failing test in this folder." });
    await untilIdle(child, out, send);
    for (const cmd of o.after ?? []) {
      send(cmd);
      await untilIdle(child, out, send);
    }
  } finally {
    child.stdin!.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await closed;
    clearTimeout(timer);
    await model.stop();
  }
  const code = await closed;
  const ms = Date.now() - started;
  const reportFile = env.LOOP_SENTINEL_PI_REPORT!;
  const report = fs.existsSync(reportFile) ? fs.readFileSync(reportFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];
  const session = findFiles(path.join(agentDir, "sessions"), /\.jsonl$/)[0] ?? "";
  fs.writeFileSync(path.join(dir, "rpc-out.jsonl"), out.map((l) => JSON.stringify(l)).join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "stderr.txt"), stderr);
  // `RECORD_PI_FIXTURES=1`: what pi sent Loop Sentinel's extension becomes a fixture the unit tests replay.
  if (process.env.RECORD_PI_FIXTURES === "1" && guard === LOOP_SENTINEL && !o.noFixture && fs.existsSync(env.LOOP_SENTINEL_PI_TRACE!)) {
    fs.mkdirSync(FIXTURES, { recursive: true });
    fs.copyFileSync(env.LOOP_SENTINEL_PI_TRACE!, path.join(FIXTURES, `${name}.jsonl`));
  }
  fs.writeFileSync(path.join(dir, "requests.json"), JSON.stringify(model.requests.map((r) => ({ ...r, body: { messages: r.body.messages } })), null, 1));
  return { model, out, stderr, code, dir, ws, report, session, ms };
}

/** How long pi must stay idle, after a run ended, before the session counts as over. */
const QUIET_MS = 800;
const RUN_DEADLINE_MS = 180_000;

/**
 * Waits until pi has no run going and nothing queued, and stayed so for QUIET_MS (a guard may
 * start a turn of its own once a cut run is over): asked with `get_state`.
 */
async function untilIdle(child: ChildProcess, out: Record<string, unknown>[], send: (cmd: Record<string, unknown>) => void): Promise<void> {
  const deadline = Date.now() + RUN_DEADLINE_MS;
  let asked = 0;
  let quietSince: number | undefined;
  // Let the command start (its agent_start) before the first look.
  await sleep(300);
  while (Date.now() < deadline && child.exitCode === null) {
    const id = `state-${++asked}`;
    send({ id, type: "get_state" });
    const reply = await until(() => out.find((l) => l.id === id), 10_000);
    const data = (reply?.data ?? {}) as { isStreaming?: boolean; pendingMessageCount?: number; isCompacting?: boolean };
    const idle = data.isStreaming === false && !data.pendingMessageCount && !data.isCompacting;
    if (!idle) quietSince = undefined;
    else if (quietSince === undefined) quietSince = Date.now();
    else if (Date.now() - quietSince >= QUIET_MS) return;
    await sleep(200);
  }
  if (child.exitCode === null) throw new Error("pi did not become idle in time");
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until<T>(get: () => T | undefined, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined || Date.now() > deadline) return v;
    await sleep(20);
  }
}
