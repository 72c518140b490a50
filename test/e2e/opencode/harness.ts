/**
 * Runs the real opencode and Kilo CLI servers from npm with the Loop Sentinel plugin installed the
 * way a user installs it (`loop-sentinel install-plugin`), against the fake model, and collects what
 * the model was sent, what the plugin reported and the hook calls it received. The agents are
 * installed once into the ignored .tmp/opencode-e2e/agents; every run gets its own HOME, XDG
 * folders and work folder, and a server password like the one the Kilo extension sets.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { makeWorkFolder, PROMPTS } from "../../recording/scenarios";
import { OPENCODE } from "../../recording/agents";
import type { E2eFakeModel, E2eScenario } from "./fakeModel";
import { StreamGuardProxy, type GuardRecord } from "../../../src/hosts/streamGuard";
import { defaultConfig } from "../../../src/engine/config";

export const REPO = path.resolve(__dirname, "../../../..");
const ROOT = path.join(REPO, ".tmp", "opencode-e2e");

export type AgentName = "opencode" | "kilo";

interface AgentSpec {
  pkg: string;
  version: string;
  bin: string;
  configFile: string;
  passwordEnv: string;
  user: string;
  offlineEnv: Record<string, string>;
}

export const AGENTS: Record<AgentName, AgentSpec> = {
  opencode: {
    pkg: "opencode-ai", version: "1.18.33", bin: "opencode", configFile: "opencode.json", passwordEnv: "OPENCODE_SERVER_PASSWORD", user: "opencode",
    offlineEnv: { OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_LSP_DOWNLOAD: "true" },
  },
  // 7.7.7: the newest release whose Linux binary package is on the registry here (7.8.1's is not).
  kilo: {
    pkg: "@kilocode/cli", version: "7.7.7", bin: "kilo", configFile: "kilo.json", passwordEnv: "KILO_SERVER_PASSWORD", user: "kilo",
    offlineEnv: { KILO_DISABLE_AUTOUPDATE: "1", KILO_DISABLE_MODELS_FETCH: "1", KILO_DISABLE_LSP_DOWNLOAD: "true", OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1" },
  },
};

const PROMPT_OF: Record<E2eScenario, string> = {
  "build-loop": PROMPTS["build-loop"],
  productive: PROMPTS.productive,
  "reasoning-loop": "Which command does npm run build run here?",
  "ls-loop": "List the files in this folder.",
};

/** Installs the pinned agent once; throws with npm's words when its binary is not available here. */
export function ensureAgent(name: AgentName): string {
  const spec = AGENTS[name];
  const dir = path.join(ROOT, "agents", name);
  const marker = path.join(dir, "node_modules", ...spec.pkg.split("/"), "package.json");
  const bin = path.join(dir, "node_modules", ".bin", spec.bin);
  if (fs.existsSync(marker) && JSON.parse(fs.readFileSync(marker, "utf8")).version === spec.version && fs.existsSync(bin)) return bin;
  fs.mkdirSync(dir, { recursive: true });
  // Its own package.json, or npm walks up and installs into the project.
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `e2e-${name}`, private: true }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", `${spec.pkg}@${spec.version}`], { cwd: dir, stdio: "inherit" });
  return bin;
}

export interface Run {
  agent: AgentName;
  scenario: E2eScenario;
  /** The plugin's report (the JSON lines it appended). */
  report: Record<string, unknown>[];
  /** The hook calls the plugin received, as recorded by LOOP_SENTINEL_OPENCODE_TRACE. */
  traceFile: string;
  ms: number;
  timedOut: boolean;
  serverLog: string;
  /** What `loop-sentinel watch --opencode` printed (--json lines), when it ran. */
  watchOutput: Record<string, unknown>[];
  /** With `proxied`: the stream guard's records (the provider's base URL pointed at it). */
  guardRecords: GuardRecord[];
}

function isolatedEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of ["PATH", "LANG", "TERM", "TMPDIR", "SHELL"]) if (process.env[k] !== undefined) env[k] = process.env[k];
  return {
    ...env, HOME: home, USERPROFILE: home, NO_COLOR: "1",
    XDG_CONFIG_HOME: path.join(home, ".config"), XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CACHE_HOME: path.join(home, ".cache"), XDG_STATE_HOME: path.join(home, ".local", "state"),
  };
}

function readJsonLines(file: string): Record<string, unknown>[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

const DEPS_FILES = ["package.json", "package-lock.json", "bun.lock", "node_modules"];

/**
 * opencode installs its plugin SDK into a config folder that holds plugins (about 17 s from npm)
 * before it answers: the first run's copy is kept and seeded into later runs' fresh folders.
 */
function seedPluginDeps(agent: AgentName, configDir: string): void {
  const template = path.join(ROOT, "plugin-deps", agent, AGENTS[agent].version);
  if (!fs.existsSync(path.join(template, "node_modules"))) return;
  // node_modules linked, not copied (64 MB): opencode only checks that the package is there.
  for (const f of DEPS_FILES) {
    const from = path.join(template, f);
    if (!fs.existsSync(from)) continue;
    if (f === "node_modules") fs.symlinkSync(from, path.join(configDir, f), "dir");
    else fs.copyFileSync(from, path.join(configDir, f));
  }
}

function keepPluginDeps(agent: AgentName, configDir: string): void {
  const template = path.join(ROOT, "plugin-deps", agent, AGENTS[agent].version);
  const installed = path.join(configDir, "node_modules");
  if (fs.existsSync(path.join(template, "node_modules")) || !fs.existsSync(installed) || fs.lstatSync(installed).isSymbolicLink()) return;
  fs.mkdirSync(template, { recursive: true });
  for (const f of DEPS_FILES) if (fs.existsSync(path.join(configDir, f))) fs.cpSync(path.join(configDir, f), path.join(template, f), { recursive: true });
}

/**
 * One session on a fresh server: creates it, posts the scenario's prompt and waits until the
 * session has stayed idle for a while (an abort is followed by the guided response).
 */
export async function runScenario(o: { agent: AgentName; scenario: E2eScenario; model: E2eFakeModel; port: number; name?: string; settings?: Record<string, unknown>; limitMs?: number; guard?: "plugin" | "project-plugin" | "watch" | "none"; proxied?: boolean }): Promise<Run> {
  const spec = AGENTS[o.agent];
  const bin = ensureAgent(o.agent);
  const runDir = path.join(ROOT, "runs", o.agent, o.name ?? o.scenario);
  fs.rmSync(runDir, { recursive: true, force: true });
  const home = path.join(runDir, "home");
  const work = path.join(runDir, "work");
  fs.mkdirSync(home, { recursive: true });
  makeWorkFolder(work);
  const env = isolatedEnv(home);
  const traceFile = path.join(runDir, "hooks.jsonl");
  const password = `e2e-${process.pid}-${Date.now()}`;
  Object.assign(env, spec.offlineEnv, { LOOP_SENTINEL_OPENCODE_TRACE: traceFile, [spec.passwordEnv]: password });

  const configDir = path.join(env.XDG_CONFIG_HOME as string, o.agent);
  fs.mkdirSync(configDir, { recursive: true });
  // Installed as a user installs it: the CLI's install-plugin into the agent's global plugin folder.
  // "project-plugin": into the work folder's .kilo/plugin or .opencode/plugin instead.
  if (o.guard !== "watch" && o.guard !== "none") execFileSync(process.execPath, [path.join(REPO, "dist", "cli.js"), "install-plugin", `--${o.agent}`, ...(o.guard === "project-plugin" ? ["--project", work] : [])], { env, stdio: ["ignore", "pipe", "pipe"] });
  // proxied: the provider's base URL points at Loop Sentinel's stream guard, which forwards to the fake model.
  const guardRecords: GuardRecord[] = [];
  const proxy = o.proxied ? new StreamGuardProxy({ upstream: `http://127.0.0.1:${o.port}/v1`, config: () => defaultConfig(), report: (r) => guardRecords.push(r) }) : undefined;
  const baseURL = proxy ? await proxy.listen() : `http://127.0.0.1:${o.port}/v1`;
  fs.writeFileSync(path.join(configDir, spec.configFile), JSON.stringify({
    // No snapshots: on a loaded machine their set-up is slow enough for the server to stop and ask the user about it.
    autoupdate: false, share: "disabled", snapshot: false, model: "fake/fake-model",
    permission: { edit: "allow", bash: "allow", webfetch: "deny" },
    provider: { fake: { npm: "@ai-sdk/openai-compatible", name: "Fake", options: { baseURL, apiKey: "fake-key" }, models: { "fake-model": { name: "Fake model", reasoning: true, tool_call: true } } } },
  }, null, 2));
  if (o.settings) {
    const file = path.join(env.XDG_CONFIG_HOME as string, "loop-sentinel", "settings.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(o.settings, null, 2));
  }

  seedPluginDeps(o.agent, configDir);
  if (o.guard === "project-plugin") seedPluginDeps(o.agent, path.join(work, `.${o.agent}`));
  o.model.play(o.scenario, OPENCODE.naming(work));
  const started = Date.now();
  const child = spawn(bin, ["serve", "--port", "0", "--hostname", "127.0.0.1"], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout!.on("data", (d) => { log += d; });
  child.stderr!.on("data", (d) => { log += d; });
  let timedOut = false;
  let watcher: ChildProcess | undefined;
  let watchOut = "";
  try {
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = log.match(/listening on (https?:\/\/[^\s]+)/);
        if (m) { clearInterval(timer); resolve(m[1].replace(/\/$/, "")); }
        if (child.exitCode !== null) { clearInterval(timer); reject(new Error(`${o.agent} serve exited: ${log}`)); }
      }, 100);
      setTimeout(() => { clearInterval(timer); reject(new Error(`${o.agent} serve printed no address in 180 s: ${log}`)); }, 180_000);
    });
    const auth = `Basic ${Buffer.from(`${spec.user}:${password}`).toString("base64")}`;
    if (o.guard === "watch") {
      // The headless guard from outside, on the server's event stream and HTTP API.
      watcher = spawn(process.execPath, [path.join(REPO, "dist", "cli.js"), "watch", "--opencode", base, "--password-env", spec.passwordEnv, "--json"], { env, stdio: ["ignore", "pipe", "pipe"] });
      watcher.stdout!.on("data", (d) => { watchOut += d; });
      watcher.stderr!.on("data", (d) => { log += `[watch] ${d}`; });
      await new Promise<void>((resolve) => { const t = setInterval(() => { if (watchOut.includes("\"watching\"")) { clearInterval(t); resolve(); } }, 50); setTimeout(() => { clearInterval(t); resolve(); }, 10_000); });
      await new Promise((r) => setTimeout(r, 500)); // its event stream connected
    }
    const api = async (method: string, route: string, body?: unknown): Promise<unknown> => {
      const res = await fetch(`${base}${route}${route.includes("?") ? "&" : "?"}directory=${encodeURIComponent(work)}`, {
        method, headers: { authorization: auth, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : undefined;
    };
    const session = await api("POST", "/session", {}) as { id: string };
    await api("POST", `/session/${session.id}/prompt_async`, { parts: [{ type: "text", text: PROMPT_OF[o.scenario] }] });
    // Generous: on a loaded 2-core machine a step of the real server can take seconds.
    const limit = o.limitMs ?? 300_000;
    let quietSince = 0;
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const status = await api("GET", "/session/status") as Record<string, { type: string }>;
      const busy = status?.[session.id] !== undefined && status[session.id].type !== "idle";
      if (busy || o.model.main().length === 0) quietSince = 0;
      else if (quietSince === 0) quietSince = Date.now();
      // Quiet for 2 s: an abort's guidance has had time to start the next response.
      if (quietSince && Date.now() - quietSince > 2000) break;
      if (Date.now() - started > limit) { timedOut = true; break; }
    }
  } finally {
    if (watcher) await stopServer(watcher);
    await stopServer(child);
    await proxy?.close();
  }
  keepPluginDeps(o.agent, configDir);
  const report = readJsonLines(path.join(env.XDG_STATE_HOME as string, "loop-sentinel", "opencode.jsonl"));
  fs.writeFileSync(path.join(runDir, "server.log"), log);
  const watchOutput = watchOut.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l));
  return { agent: o.agent, scenario: o.scenario, report, traceFile, ms: Date.now() - started, timedOut, serverLog: log, watchOutput, guardRecords };
}

/** With RECORD_OPENCODE_FIXTURES=1: keeps the hook calls a run received as a fixture for the unit tests. */
export function keepFixture(run: Run, name: string): void {
  // A run that did not settle is no recording of the host's order: never kept.
  if (process.env.RECORD_OPENCODE_FIXTURES !== "1" || run.timedOut) return;
  const dir = path.join(REPO, "test", "fixtures", "opencode-plugin", run.agent);
  fs.mkdirSync(dir, { recursive: true });
  // Written anew (the trace is private to its user; the fixture is an ordinary file).
  fs.writeFileSync(path.join(dir, `${name}.jsonl`), fs.readFileSync(run.traceFile));
  const spec = AGENTS[run.agent];
  fs.writeFileSync(path.join(dir, "RECORDED.json"), JSON.stringify({ package: spec.pkg, version: spec.version, recordedWith: "RECORD_OPENCODE_FIXTURES=1 npm run test:e2e:opencode" }, null, 2) + "\n");
}
