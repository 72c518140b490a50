/**
 * Runs a real agent CLI (the pinned builds the hook suites install, test/e2e/agents/harness.ts)
 * through `loop-sentinel run` against the looping fake provider (test/fakeLoopingUpstream.ts),
 * offline, each run in its own workspace and agent home. The guard's records come back from
 * `run --json` (stderr), what the provider saw from the fake itself.
 */
import { spawn } from "node:child_process";
import { runNice } from "../../niceRun";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { ensureCli, type Agent as HookAgent } from "../agents/harness";

// Qwen Code is guarded through its hooks only (test/e2e/agents); the stream guard's suite does not run it.
export type Agent = Exclude<HookAgent, "qwen"> | "gemini";

const GEMINI_VERSION = "0.61.0";

/** The Gemini CLI, pinned as the recordings are (installed beside the hook suites' CLIs on first use). */
function ensureAgent(agent: Agent): string {
  if (agent !== "gemini") return ensureCli(agent);
  const prefix = path.join(REPO, ".tmp", "hook-agents", `gemini-cli-${GEMINI_VERSION}`);
  const bin = path.join(prefix, "node_modules", ".bin", "gemini");
  const pkg = path.join(prefix, "node_modules", "@google", "gemini-cli", "package.json");
  if (!(fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, "utf8")).version === GEMINI_VERSION)) {
    fs.mkdirSync(prefix, { recursive: true });
    execFileSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", `@google/gemini-cli@${GEMINI_VERSION}`], { stdio: "inherit" });
  }
  return bin;
}
import { LoopingUpstream, type UpstreamOptions } from "../../fakeLoopingUpstream";

export const REPO = path.resolve(__dirname, "../../../..");
// Outside the repository: a CLI puts the git history of its working folder in its prompt.
const RUNS_ROOT = path.join(os.tmpdir(), "loop-sentinel-streamguard-e2e");
const CLI = path.join(REPO, "dist", "cli.js");

export interface GuardedRun {
  up: LoopingUpstream;
  code: number | null;
  stdout: string;
  stderr: string;
  /** The guard's records (`run --json`), in order. */
  records: Record<string, any>[];
  ms: number;
  dir: string;
}

export interface GuardedOptions {
  upstream?: UpstreamOptions;
  /** Point the guard at this upstream instead of the fake's (e.g. a closed port). */
  upstreamUrl?: string;
  /** A second turn that resumes the session (Codex: `exec resume --last`). */
  secondTurn?: boolean;
  /** Through a `loop-sentinel proxy` started beforehand, pointed at by hand, instead of `run`. */
  viaProxy?: boolean;
  /** The fake provider serves https with a test certificate (the proxy trusts it through NODE_EXTRA_CA_CERTS). */
  tls?: boolean;
  /**
   * The agent's own cap on retries of a failed request, lowered so that a test of an unreachable
   * provider takes seconds (Claude Code CLAUDE_CODE_MAX_RETRIES, Codex request/stream_max_retries,
   * Gemini CLI general.maxAttempts). The guard's part is the same whatever the cap.
   */
  agentRetries?: number;
  /** Engine settings for the guard (`--set key=value`, both `run` and `proxy`). */
  set?: string[];
}

/** A throwaway certificate for 127.0.0.1 (openssl, as on any CI image). */
function testCertificate(dir: string): { key: Buffer; cert: Buffer; file: string } {
  const key = path.join(dir, "key.pem");
  const file = path.join(dir, "cert.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", file, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  return { key: fs.readFileSync(key), cert: fs.readFileSync(file), file };
}

/** Starts `loop-sentinel proxy --json`; its first line gives the base URL, the rest its records. */
async function startProxy(upstream: string, caFile?: string, set: string[] = []): Promise<{ url: string; stop: () => Promise<Record<string, any>[]> }> {
  const env = caFile ? { ...process.env, NODE_EXTRA_CA_CERTS: caFile } : process.env;
  const child = spawn("nice", ["-n", "10", process.execPath, CLI, "proxy", "--upstream", upstream, "--json", ...set.flatMap((kv) => ["--set", kv])], { stdio: ["ignore", "pipe", "pipe"], env });
  let stdout = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d) => {
      stdout += d;
      const first = stdout.split("\n")[0];
      if (stdout.includes("\n")) { try { resolve(JSON.parse(first).url); } catch (err) { reject(err); } }
    });
    child.on("exit", (code) => reject(new Error(`proxy exited ${code}`)));
  });
  return {
    url,
    stop: () => new Promise((resolve) => {
      child.on("close", () => resolve(stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))));
      child.kill("SIGTERM");
    }),
  };
}

function agentCommand(agent: Agent, bin: string, turn: 1 | 2): string[] {
  const prompt = turn === 1 ? "List the files here" : "Please continue";
  switch (agent) {
    case "claude": return [bin, "-p", prompt, ...(turn === 2 ? ["--continue"] : []), "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash"];
    case "copilot": return [bin, "-p", prompt, ...(turn === 2 ? ["--continue"] : []), "--allow-all-tools", "--no-ask-user", "--output-format", "json", "--trust-folder"];
    case "gemini": return [bin, "--yolo", "-m", "gemini-2.5-pro", ...(turn === 2 ? ["--resume", "latest"] : []), "-p", prompt];
    case "codex": return turn === 1
      ? [bin, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", prompt]
      : [bin, "exec", "resume", "--last", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", prompt];
  }
}

export async function runGuarded(agent: Agent, name: string, o: GuardedOptions = {}): Promise<GuardedRun[]> {
  const bin = ensureAgent(agent);
  const dir = path.join(RUNS_ROOT, `${agent}-${name}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const ws = path.join(dir, "ws");
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, "a.txt"), "hello\n");
  const home = path.join(dir, "home");
  fs.mkdirSync(path.join(home, ".copilot"), { recursive: true });
  const tls = o.tls ? testCertificate(dir) : undefined;
  const up = new LoopingUpstream({ ...o.upstream, ...(tls ? { tls: { key: tls.key, cert: tls.cert } } : {}) });
  await up.start();
  const proxy = o.viaProxy ? await startProxy(o.upstreamUrl ?? up.url, tls?.file, o.set) : undefined;
  // Through `proxy` the agent is pointed at the guard by hand, as a user does.
  const upstreamUrl = proxy ? proxy.url : o.upstreamUrl ?? up.url;
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, NO_COLOR: "1", CLAUDE_CONFIG_DIR: path.join(dir, "claude-config"), COPILOT_HOME: path.join(home, ".copilot"), CODEX_HOME: path.join(dir, "codex-home") };
  delete env.XDG_RUNTIME_DIR;
  switch (agent) {
    case "claude":
      Object.assign(env, { ANTHROPIC_BASE_URL: upstreamUrl, ANTHROPIC_API_KEY: "fake-key", ANTHROPIC_MODEL: "fake-model", ANTHROPIC_SMALL_FAST_MODEL: "fake-model", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1" });
      if (o.agentRetries !== undefined) env.CLAUDE_CODE_MAX_RETRIES = String(o.agentRetries);
      break;
    case "copilot":
      Object.assign(env, { COPILOT_OFFLINE: "true", COPILOT_PROVIDER_BASE_URL: `${upstreamUrl}/v1`, COPILOT_PROVIDER_API_KEY: "fake-key-loop-sentinel-e2e-0123456789", COPILOT_MODEL: "fake-model", COPILOT_AUTO_UPDATE: "false", XDG_CACHE_HOME: path.join(REPO, ".tmp", "hook-agents", "xdg-cache") });
      break;
    case "gemini":
      fs.mkdirSync(path.join(home, ".gemini"), { recursive: true });
      // Its own loop check off: what is measured is the guard's.
      fs.writeFileSync(path.join(home, ".gemini", "settings.json"), JSON.stringify({
        general: { disableAutoUpdate: true, disableUpdateNag: true }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false },
        security: { folderTrust: { enabled: false }, auth: { selectedType: "gemini-api-key" } }, model: { disableLoopDetection: true },
        ...(o.agentRetries !== undefined ? { general: { disableAutoUpdate: true, disableUpdateNag: true, maxAttempts: o.agentRetries + 1 } } : {}),
      }));
      Object.assign(env, { GOOGLE_GEMINI_BASE_URL: upstreamUrl, GEMINI_API_KEY: "fake-key", GEMINI_CLI_NO_RELAUNCH: "true", XDG_CONFIG_HOME: path.join(home, ".config"), XDG_CACHE_HOME: path.join(home, ".cache") });
      break;
    case "codex":
      fs.mkdirSync(env.CODEX_HOME!, { recursive: true });
      fs.writeFileSync(path.join(env.CODEX_HOME!, "config.toml"), ['model = "fake-model"', 'model_provider = "fake"', "", "[model_providers.fake]", 'name = "fake"', `base_url = "${upstreamUrl}/v1"`, 'wire_api = "responses"', 'env_key = "FAKE_API_KEY"', ...(o.agentRetries !== undefined ? [`request_max_retries = ${o.agentRetries}`, `stream_max_retries = ${o.agentRetries}`] : []), ""].join("\n"));
      env.FAKE_API_KEY = "fake-key-123";
      break;
  }
  const runs: GuardedRun[] = [];
  for (const turn of o.secondTurn ? [1, 2] as const : [1] as const) {
    const t0 = Date.now();
    const command = proxy ? agentCommand(agent, bin, turn) : [process.execPath, CLI, "run", "--json", ...(o.set ?? []).flatMap((kv) => ["--set", kv]), "--", ...agentCommand(agent, bin, turn)];
    const result = await runNice(command, { cwd: ws, env }, 180_000);
    const records: Record<string, any>[] = [];
    for (const line of result.stderr.split("\n")) {
      if (!line.startsWith("{")) continue;
      try { const r = JSON.parse(line); if (typeof r.type === "string") records.push(r); } catch { /* the agent's own line */ }
    }
    fs.writeFileSync(path.join(dir, `stdout${turn}.txt`), result.stdout);
    fs.writeFileSync(path.join(dir, `stderr${turn}.txt`), result.stderr);
    runs.push({ up, ...result, records, ms: Date.now() - t0, dir });
  }
  if (proxy) runs[runs.length - 1].records = await proxy.stop();
  await up.stop();
  fs.writeFileSync(path.join(dir, "upstream.json"), JSON.stringify(up.requests.map(({ raw: _raw, ...r }) => r), null, 1));
  return runs;
}
