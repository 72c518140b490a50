/**
 * Runs the real Cline CLI from npm against the fake model, with `loop-sentinel watch` guarding
 * its data folder, and collects what each of them did. The CLIs are installed into the ignored
 * `.tmp/cline-cli/` on first use (npm registry only), each run gets its own HOME and data folder.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { FakeModelServer, RequestRecord, ScenarioName } from "./fakeModel";

export const REPO = path.resolve(__dirname, "../../../..");
const CLI_ROOT = path.join(REPO, ".tmp", "cline-cli");
export const RUNS_ROOT = path.join(REPO, ".tmp", "cline-e2e");

/** classic = cline@2.18.0 (classic core, ui_messages.json); v4 = cline@3.0.65 (SDK core, session files). */
export type CliKind = "classic" | "v4";
export const CLI_VERSIONS: Record<CliKind, string> = { classic: "2.18.0", v4: "3.0.65" };

const PROMPT = "List the files in the current directory.";

function cliDir(kind: CliKind): string { return path.join(CLI_ROOT, kind); }

/** Installs the pinned Cline CLI once (about 30 s each); later runs reuse it. */
export function ensureCli(kind: CliKind): void {
  const dir = cliDir(kind);
  const marker = path.join(dir, "node_modules", "cline", "package.json");
  if (fs.existsSync(marker) && JSON.parse(fs.readFileSync(marker, "utf8")).version === CLI_VERSIONS[kind]) return;
  fs.mkdirSync(dir, { recursive: true });
  // Its own package.json, or npm walks up and installs into the project.
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `cline-${kind}`, private: true }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", `cline@${CLI_VERSIONS[kind]}`], { cwd: dir, stdio: "inherit" });
}

function cliCommand(kind: CliKind): { file: string; args: string[] } {
  if (kind === "v4") return { file: path.join(cliDir(kind), "node_modules", ".bin", "cline"), args: [] };
  return { file: process.execPath, args: [path.join(cliDir(kind), "node_modules", "cline", "dist", "cli.mjs")] };
}

function cliEnv(home: string, channel?: string): NodeJS.ProcessEnv {
  // Own HOME so nothing touches the machine's ~/.cline; no self-update (it spawns a global npm install).
  // The hook channel folder is the run's own, for the CLI's hooks and the guard alike.
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, CLINE_NO_AUTO_UPDATE: "1", NO_COLOR: "1" };
  if (channel) env.LOOP_SENTINEL_CHANNEL_DIR = channel;
  return env;
}

/** Writes the provider settings once per CLI into a template data folder, copied for each run. */
export function authTemplate(kind: CliKind, port: number): string {
  const template = path.join(RUNS_ROOT, `auth-${kind}-${port}`);
  if (fs.existsSync(path.join(template, ".done"))) return template;
  fs.rmSync(template, { recursive: true, force: true });
  const home = path.join(template, "home");
  const data = path.join(template, "data");
  fs.mkdirSync(home, { recursive: true });
  const { file, args } = cliCommand(kind);
  const base = `http://127.0.0.1:${port}/v1`;
  const authArgs = kind === "v4"
    ? ["auth", "--provider", "openai-compatible", "--apikey", "sk-fake", "--modelid", "fake-model", "--baseurl", base, "--data-dir", data]
    : ["auth", "-p", "openai", "-k", "sk-fake", "-m", "fake-model", "-b", base, "--config", data];
  execFileSync(file, [...args, ...authArgs], { env: cliEnv(home), stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });
  fs.writeFileSync(path.join(template, ".done"), "");
  return template;
}

export interface WatchRecord {
  type: string;
  elapsedMs: number;
  action?: string;
  detector?: string;
  summary?: string;
  taskId?: string;
  evidence?: { count?: number };
  toolName?: string;
  toolCallId?: string;
  source?: { index: number; kind: string; partial: boolean; chars: number };
  pid?: number;
}

export interface RunResult {
  kind: CliKind;
  scenario: ScenarioName;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** We had to stop the CLI ourselves (it ran past the time limit). */
  timedOut: boolean;
  durationMs: number;
  watch: WatchRecord[];
  watchExitCode: number | null;
  watchStderr: string;
  cliStdout: string;
  /** Classic: ui_messages.json; v4: messages[] of the session file. */
  messages: Record<string, unknown>[];
  /** v4 session manifest (status, ...). */
  manifest?: Record<string, unknown>;
  requests: number;
  /** What the model received, request by request. */
  requestLog: RequestRecord[];
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<undefined>((r) => { timer = setTimeout(() => r(undefined), ms); });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

export interface RunOptions {
  kind: CliKind;
  scenario: ScenarioName;
  server: FakeModelServer;
  port: number;
  /** Give the guard the CLI's pid to interrupt. */
  interrupt: boolean;
  timeoutMs: number;
  /** More `watch` options (e.g. `--interrupt-on`). */
  watchArgs?: string[];
  /** Install Loop Sentinel's PreToolUse hook in the run's global Cline hooks folder. */
  hook?: boolean;
  /** Run no guard at all (Loop Sentinel absent): only the hook, with nothing to answer it. */
  noGuard?: boolean;
}

export async function runScenario(o: RunOptions): Promise<RunResult> {
  const template = authTemplate(o.kind, o.port);
  fs.mkdirSync(RUNS_ROOT, { recursive: true });
  const run = fs.mkdtempSync(path.join(RUNS_ROOT, `${o.scenario}-${o.kind}-`));
  fs.cpSync(template, run, { recursive: true });
  const home = path.join(run, "home");
  const data = path.join(run, "data");
  const work = path.join(run, "work");
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(work, "README.txt"), "hello\n");
  // A short path of its own: a Unix socket path must stay under ~100 bytes.
  const channel = fs.mkdtempSync(path.join(os.tmpdir(), "lsc-"));
  if (o.hook) {
    // Into the folders Cline reads under the run's HOME, found the way a user's install finds them
    // (the SDK core: ~/Documents/Cline/Hooks; the classic core on Linux: xdg-user-dir's Documents).
    execFileSync(process.execPath, [path.join(REPO, "dist", "cli.js"), "cline-hook", "install"], { stdio: "pipe", env: cliEnv(home) });
  }
  o.server.play(o.scenario);

  const { file, args } = cliCommand(o.kind);
  const cliArgs = o.kind === "v4"
    ? [...args, "--data-dir", data, "-c", work, "--json", PROMPT]
    : [...args, "task", "--yolo", "--json", "--config", data, "-c", work, PROMPT];
  const started = Date.now();
  const cli = spawn(file, cliArgs, { env: cliEnv(home, channel), stdio: ["ignore", "pipe", "pipe"] });
  let cliStdout = "";
  cli.stdout!.on("data", (d) => { cliStdout += d; });
  cli.stderr!.on("data", () => { /* drained; the CLI's own logs are in its data folder */ });
  const cliExit = exited(cli);

  const watchArgs = [path.join(REPO, "dist", "cli.js"), "watch", "--cline-data", data, "--json", "--poll", "50"];
  if (o.interrupt) watchArgs.push("--interrupt", String(cli.pid));
  watchArgs.push("--channel-dir", channel, ...(o.watchArgs ?? []));
  const guard = spawn(process.execPath, o.noGuard ? ["-e", ""] : watchArgs, { stdio: ["ignore", "pipe", "pipe"] });
  let watchOut = "", watchErr = "";
  guard.stdout!.on("data", (d) => { watchOut += d; });
  guard.stderr!.on("data", (d) => { watchErr += d; });
  const guardExit = exited(guard);

  let timedOut = false;
  let result = await within(cliExit, o.timeoutMs);
  if (!result) {
    timedOut = true;
    cli.kill("SIGINT");
    result = await within(cliExit, 10_000);
    if (!result) { cli.kill("SIGKILL"); result = await cliExit; }
  }
  const durationMs = Date.now() - started;
  // With --interrupt the guard ends when the CLI does; otherwise give it a moment for the last write.
  let guardResult = await within(guardExit, o.interrupt ? 5_000 : 1_500);
  if (!guardResult) { guard.kill("SIGTERM"); guardResult = await within(guardExit, 5_000); }
  if (!guardResult) { guard.kill("SIGKILL"); guardResult = await guardExit; }

  fs.rmSync(channel, { recursive: true, force: true });
  const watch = watchOut.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l) as WatchRecord);
  const { messages, manifest } = readTaskFiles(o.kind, data);
  return {
    kind: o.kind, scenario: o.scenario, exitCode: result.code, signal: result.signal, timedOut, durationMs,
    watch, watchExitCode: guardResult.code, watchStderr: watchErr, cliStdout, messages, manifest, requests: o.server.requests.length, requestLog: [...o.server.requests],
  };
}

function readTaskFiles(kind: CliKind, data: string): { messages: Record<string, unknown>[]; manifest?: Record<string, unknown> } {
  if (kind === "classic") {
    const tasks = path.join(data, "data", "tasks");
    const ids = fs.existsSync(tasks) ? fs.readdirSync(tasks) : [];
    if (ids.length !== 1) throw new Error(`expected one task in ${tasks}, found ${ids.length}`);
    return { messages: JSON.parse(fs.readFileSync(path.join(tasks, ids[0], "ui_messages.json"), "utf8")) };
  }
  const sessions = path.join(data, "sessions");
  const ids = fs.existsSync(sessions) ? fs.readdirSync(sessions) : [];
  if (ids.length !== 1) throw new Error(`expected one session in ${sessions}, found ${ids.length}`);
  const dir = path.join(sessions, ids[0]);
  const doc = JSON.parse(fs.readFileSync(path.join(dir, `${ids[0]}.messages.json`), "utf8"));
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, `${ids[0]}.json`), "utf8"));
  return { messages: doc.messages, manifest };
}

/** A short account of a run for assertion messages. */
export function describeRun(r: RunResult): string {
  const ivs = r.watch.filter((w) => w.type === "intervention").map((w) => `${w.action}/${w.detector}@${w.source?.kind}#${w.source?.index}${w.source?.partial ? "(partial)" : ""}`);
  return `${r.kind} ${r.scenario}: exit ${r.exitCode ?? r.signal} after ${r.durationMs} ms${r.timedOut ? " (timed out)" : ""}, ${r.requests} model requests, ` +
    `guard exit ${r.watchExitCode}, interventions [${ivs.join(", ")}]${r.watchStderr ? `, guard stderr: ${r.watchStderr.trim()}` : ""}`;
}
