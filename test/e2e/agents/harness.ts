/**
 * Runs the real Claude Code, Copilot CLI, Codex, Gemini CLI and Qwen Code from npm (pinned; installed into the ignored
 * `.tmp/hook-agents/` on first use) against the fake model, with Loop Sentinel's hook installed
 * the way a user installs it (`loop-sentinel hooks install <agent> --project <workspace>`, or
 * user-wide into the run's own agent home). Each run gets its own workspace, agent home, channel
 * folder and Loop Sentinel folder: nothing touches the machine's own settings.
 * The recipe (environment, flags, trust) is the one verified in ../shared/hosts/hook-agents and
 * ../shared/hosts/more-agents.
 */
import { execFileSync, spawn } from "node:child_process";
import { runNice } from "../../niceRun";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { FakeModel, type Step } from "./fakeModel";

export const REPO = path.resolve(__dirname, "../../../..");
const CLI_ROOT = path.join(REPO, ".tmp", "hook-agents");
export const RUNS_ROOT = path.join(REPO, ".tmp", "hook-agents-e2e");

export type Agent = "claude" | "copilot" | "codex" | "gemini" | "qwen";
export const PINNED: Record<Agent, { pkg: string; version: string; bin: string }> = {
  claude: { pkg: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude" },
  copilot: { pkg: "@github/copilot", version: "1.0.102", bin: "copilot" },
  codex: { pkg: "@openai/codex", version: "0.171.0", bin: "codex" },
  gemini: { pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  qwen: { pkg: "@qwen-code/qwen-code", version: "0.24.4", bin: "qwen" },
};

/** The folder a CLI is installed in (Gemini CLI's is the one the stream guard's suite installs too). */
function cliPrefix(agent: Agent): string {
  const name = agent === "claude" ? "claude-code" : agent === "gemini" ? "gemini-cli" : agent;
  return path.join(CLI_ROOT, `${name}-${PINNED[agent].version}`);
}

/** Installs the pinned CLI once (about 30 s each here); later runs reuse it. Optional deps carry the native binaries. */
export function ensureCli(agent: Agent): string {
  const prefix = cliPrefix(agent);
  const bin = path.join(prefix, "node_modules", ".bin", PINNED[agent].bin);
  const pkg = path.join(prefix, "node_modules", ...PINNED[agent].pkg.split("/"), "package.json");
  if (!(fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, "utf8")).version === PINNED[agent].version)) {
    fs.mkdirSync(prefix, { recursive: true });
    execFileSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", `${PINNED[agent].pkg}@${PINNED[agent].version}`], { stdio: "inherit" });
  }
  return bin;
}

export interface RunOptions {
  /** Install the hook with these engine settings (`{"mode":"warnOnly"}`). */
  settings?: Record<string, unknown>;
  /** After installing: "absent" removes the installed script, "broken" replaces it with one that crashes. */
  damage?: "absent" | "broken";
  /** Put a no-op Node hook in place of Loop Sentinel's (the bench's baseline), or no hook at all. */
  baseline?: "noop" | "none";
  /** Where the hook goes: the project (default; Codex and Gemini CLI: the user folder) or the agent's user folder. */
  scope?: "project" | "user";
  /** Put a hook that keeps each stdin it gets (in `<run>/hook-input/`) in place of Loop Sentinel's: recording fixtures. */
  recordInput?: boolean;
  /** Run `loop-sentinel watch --agents --json` on the run's channel for the hook to ask. */
  watch?: boolean;
  /** Qwen Code: more of its own settings (the latency script's HTTP hook). */
  qwenSettings?: Record<string, unknown>;
}

export interface RunResult {
  model: FakeModel;
  code: number | null;
  stdout: string;
  stderr: string;
  dir: string;
  ws: string;
  /** Tool calls the headless hook counted (from its session files): proof that it ran. */
  hookCalls: number;
  /** With `watch`: what it printed, one JSON record a line. */
  watched: Record<string, unknown>[];
}

/** Starts `loop-sentinel watch --agents --json` and waits until it answers on the channel. */
async function startWatch(env: NodeJS.ProcessEnv): Promise<{ stop(): Promise<Record<string, unknown>[]> }> {
  const child = spawn(process.execPath, [path.join(REPO, "dist", "cli.js"), "watch", "--agents", "--json"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => { out += d; });
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`watch --agents did not start: ${out}`)), 30_000);
    const check = () => { if (out.includes('"type":"watching"')) { clearTimeout(timer); resolve(); } };
    child.stdout.on("data", check);
    child.on("close", () => { clearTimeout(timer); reject(new Error(`watch --agents ended: ${out}`)); });
  });
  return {
    async stop() {
      child.kill("SIGTERM");
      await closed;
      return out.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

function countedCalls(channel: string): number {
  const dir = path.join(channel, "agent-sessions");
  let n = 0;
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    // Each session's event log: one event a line, beside its state file.
    if (!f.endsWith(".log.jsonl")) continue;
    for (const line of fs.readFileSync(path.join(dir, f), "utf8").split("\n")) {
      try { if ((JSON.parse(line) as { t: string }).t === "tool_call") n++; } catch { /* the last line being written */ }
    }
  }
  return n;
}

/** The workspace every scenario starts from: a file to read and edit, and a test to run. */
function makeWorkspace(ws: string): void {
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, "a.txt"), "hello\n");
  fs.writeFileSync(path.join(ws, "calc.js"), "exports.add = (a, b) => a - b;\n");
  fs.writeFileSync(path.join(ws, "test.js"), "const { add } = require('./calc');\nif (add(2, 3) !== 5) { console.error('FAIL add(2,3)=' + add(2, 3)); process.exit(1); }\nconsole.log('ok');\n");
  execFileSync("git", ["init", "-q"], { cwd: ws });
}

const NOOP_HOOK = "process.stdin.resume();process.stdin.on('end',()=>process.exit(0));\n";

/** Keeps each input as it came, numbered in the order the hooks ran, and answers nothing. */
function recordingHook(dir: string): string {
  return `const fs=require("fs"),path=require("path");const dir=${JSON.stringify(dir)};let raw="";` +
    `process.stdin.on("data",(d)=>raw+=d).on("end",()=>{fs.mkdirSync(dir,{recursive:true});let ev="unknown";try{ev=JSON.parse(raw).hook_event_name||ev}catch{}` +
    `const n=fs.readdirSync(dir).length+1;fs.writeFileSync(path.join(dir,String(n).padStart(2,"0")+"-"+ev+".json"),raw);process.exit(0)});\n`;
}

function installHook(agent: Agent, dir: string, ws: string, env: NodeJS.ProcessEnv, o: RunOptions): void {
  if (o.baseline === "none") return;
  const args = [path.join(REPO, "dist", "cli.js"), "hooks", "install", agent];
  if ((o.scope ?? (agent === "codex" || agent === "gemini" ? "user" : "project")) === "project") args.push("--project", ws);
  if (o.settings) {
    const file = path.join(dir, "loop-sentinel-settings.json");
    fs.writeFileSync(file, JSON.stringify(o.settings));
    args.push("--config", file);
  }
  execFileSync(process.execPath, args, { env, stdio: "pipe" });
  const script = path.join(env.LOOP_SENTINEL_HOME!, "loop-sentinel-agent-hook.js");
  if (o.baseline === "noop") fs.writeFileSync(script, NOOP_HOOK);
  if (o.recordInput) fs.writeFileSync(script, recordingHook(path.join(dir, "hook-input")));
  if (o.damage === "absent") fs.rmSync(script);
  if (o.damage === "broken") fs.writeFileSync(script, "this is not javascript (\n");
}

/** Runs one agent on the scenario's steps; the model and what the CLI printed come back. */
export async function runAgent(agent: Agent, name: string, steps: Step[], o: RunOptions = {}): Promise<RunResult> {
  const bin = ensureCli(agent);
  const dir = path.join(RUNS_ROOT, `${agent}-${name}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const ws = path.join(dir, "ws");
  makeWorkspace(ws);
  const home = path.join(dir, "home");
  fs.mkdirSync(home, { recursive: true });
  const channel = fs.mkdtempSync(path.join(os.tmpdir(), "ls-agents-"));
  const model = new FakeModel(steps.map((s) => resolvePaths(s, ws)));
  await model.start();
  const env: NodeJS.ProcessEnv = {
    ...process.env, HOME: home, LOOP_SENTINEL_HOME: path.join(dir, "loop-sentinel"), LOOP_SENTINEL_CHANNEL_DIR: channel, NO_COLOR: "1",
    CLAUDE_CONFIG_DIR: path.join(dir, "claude-config"), COPILOT_HOME: path.join(home, ".copilot"), CODEX_HOME: path.join(dir, "codex-home"),
    GEMINI_CLI_HOME: path.join(dir, "gemini-home"), QWEN_HOME: path.join(dir, "qwen-home"),
  };
  delete env.XDG_RUNTIME_DIR;
  let args: string[];
  const prompt = "Fix the failing test in this folder.";
  switch (agent) {
    case "claude":
      Object.assign(env, {
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.port}`, ANTHROPIC_API_KEY: "fake-key", ANTHROPIC_MODEL: "fake-model", ANTHROPIC_SMALL_FAST_MODEL: "fake-model",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1",
      });
      args = ["-p", prompt, "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash Read Edit Write Grep Glob"];
      break;
    case "copilot":
      Object.assign(env, {
        COPILOT_OFFLINE: "true", COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${model.port}/v1`, COPILOT_PROVIDER_API_KEY: "fake-key-loop-sentinel-e2e-0123456789",
        COPILOT_MODEL: "fake-model", COPILOT_AUTO_UPDATE: "false", XDG_CACHE_HOME: path.join(CLI_ROOT, "xdg-cache"),
      });
      args = ["-p", prompt, "--allow-all-tools", "--no-ask-user", "--output-format", "json", "--trust-folder"];
      break;
    case "codex":
      fs.mkdirSync(env.CODEX_HOME!, { recursive: true });
      fs.writeFileSync(path.join(env.CODEX_HOME!, "config.toml"), [
        'model = "fake-model"', 'model_provider = "fake"', "", "[model_providers.fake]", 'name = "fake"',
        `base_url = "http://127.0.0.1:${model.port}/v1"`, 'wire_api = "responses"', 'env_key = "FAKE_API_KEY"', "",
      ].join("\n"));
      env.FAKE_API_KEY = "fake-key-123";
      args = ["exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", prompt];
      break;
    case "gemini":
      // Its own settings first: the install merges the hook in beside them.
      fs.mkdirSync(path.join(env.GEMINI_CLI_HOME!, ".gemini"), { recursive: true });
      fs.writeFileSync(path.join(env.GEMINI_CLI_HOME!, ".gemini", "settings.json"), JSON.stringify({
        general: { disableAutoUpdate: true, disableUpdateNag: true }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false },
        security: { folderTrust: { enabled: false }, auth: { selectedType: "gemini-api-key" } },
      }, null, 2));
      Object.assign(env, { GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${model.port}`, GEMINI_API_KEY: "fake-key", GEMINI_CLI_NO_RELAUNCH: "true", TERM: "dumb" });
      args = ["--yolo", "-m", "gemini-2.5-pro", "-p", prompt];
      break;
    case "qwen":
      fs.mkdirSync(env.QWEN_HOME!, { recursive: true });
      fs.writeFileSync(path.join(env.QWEN_HOME!, "settings.json"), JSON.stringify({
        security: { auth: { selectedType: "openai" } }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false }, ...o.qwenSettings,
      }, null, 2));
      Object.assign(env, { OPENAI_API_KEY: "fake-key", OPENAI_BASE_URL: `http://127.0.0.1:${model.port}/v1`, OPENAI_MODEL: "fake-model", QWEN_CODE_SUPPRESS_YOLO_WARNING: "1" });
      args = ["--yolo", "-p", prompt];
      break;
  }
  installHook(agent, dir, ws, env, o);
  // A generous deadline: a loaded machine must not make the hook fall back to deciding alone.
  if (o.watch) env.LOOP_SENTINEL_HOOK_DEADLINE_MS = "10000";
  const watch = o.watch ? await startWatch(env) : undefined;
  const result = await runNice([bin, ...args], { cwd: ws, env }, 240_000);
  await model.stop();
  const watched = watch ? await watch.stop() : [];
  if (watch) fs.writeFileSync(path.join(dir, "watch.jsonl"), watched.map((r) => JSON.stringify(r)).join("\n"));
  fs.writeFileSync(path.join(dir, "stdout.txt"), result.stdout);
  fs.writeFileSync(path.join(dir, "stderr.txt"), result.stderr);
  fs.writeFileSync(path.join(dir, "requests.json"), JSON.stringify(model.requests, null, 1));
  const hookCalls = countedCalls(channel);
  fs.cpSync(channel, path.join(dir, "channel"), { recursive: true });
  fs.rmSync(channel, { recursive: true, force: true });
  return { model, ...result, dir, ws, hookCalls, watched };
}

/** Steps name files relative to the workspace; the tools want absolute paths. */
function resolvePaths(step: Step, ws: string): Step {
  const c = step.call;
  if (!c || c.kind === "shell") return step;
  return { ...step, call: { ...c, path: path.join(ws, c.path) } };
}
