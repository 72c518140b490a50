/**
 * `loop-sentinel proxy` and `loop-sentinel run`: the stream guard on an agent's model endpoint
 * (src/hosts/streamGuard). `proxy` serves until SIGINT/SIGTERM and prints its base URL first;
 * `run` starts a guard for one agent run, points the agent at it, and ends with it, passing the
 * agent's exit code through. Nothing of a request (headers, bodies) is printed: only the guard's
 * interventions, cuts and the guidance it delivered.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { StreamGuardProxy, type GuardRecord } from "../hosts/streamGuard";
import { flag, parseArgs, UsageError } from "./args";
import type { CliIO } from "./io";
import { loadCliConfig } from "./loadConfig";
import type { WatchControl } from "./watchControl";
import { quoted } from "../engine/printable";
import { agentHookStatus } from "../hosts/hookAgents/install";

export const PROXY_USAGE = "proxy --upstream URL [--port N] [--json] [--tools-by-hook] [--config FILE] [--set key=value]";
export const RUN_USAGE = "run [--upstream URL] [--env NAME] [--json] [--config FILE] [--set key=value] -- <agent command...>";

function upstreamOk(url: string, what: string): string {
  let u: URL;
  try { u = new URL(url); } catch { throw new UsageError(`${what} must be a URL (https://api.anthropic.com, http://127.0.0.1:11434/v1), got ${quoted(url)}`); }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new UsageError(`${what} must be an http:// or https:// URL, got ${quoted(url)}`);
  return url;
}

/** Prints the guard's records: one line each for a person, or one JSON object a line. */
function printer(io: CliIO, json: boolean, started: number): (r: GuardRecord) => void {
  const clock = () => new Date().toISOString().slice(11, 23);
  return (r) => {
    if (json) {
      if (r.type === "intervention") {
        const { type, session, agent, ...iv } = r;
        io.out(JSON.stringify({ type, session, agent, elapsedMs: Date.now() - started, ...iv }));
      } else io.out(JSON.stringify({ ...r, elapsedMs: Date.now() - started }));
      return;
    }
    switch (r.type) {
      case "session": io.out(`${clock()}  session ${r.session} (${r.agent})`); return;
      case "intervention": io.out(`${clock()}  session ${r.session}  ${r.action.toUpperCase().padEnd(5)} ${r.detector}: ${r.message}`); return;
      case "cut": io.out(`${clock()}  session ${r.session}  cut the ${r.format} answer after ${r.streamedChars} characters (${r.msFromFirstByte} ms in)${r.droppedCall ? `; ${r.droppedCall}` : ""}`); return;
      case "guidance": io.out(`${clock()}  session ${r.session}  guidance delivered in the next request`); return;
      case "answered": io.out(`${clock()}  session ${r.session}  answered by the guard: ${r.why}`); return;
      case "left-to-plugin": io.out(`${clock()}  session ${r.session}  guarded by Loop Sentinel's plugin in its server: passed through untouched`); return;
      case "error": io.err(`loop-sentinel: stream guard: ${r.message}`); return;
    }
  };
}

export async function runProxy(argv: string[], io: CliIO, control: WatchControl = {}): Promise<number> {
  const args = parseArgs(argv, ["upstream", "port", "config", "set"], ["json", "tools-by-hook"]);
  if (args.positionals.length) throw new UsageError(`unexpected argument ${quoted(args.positionals[0])}`);
  const upstream = flag(args, "upstream");
  if (!upstream) throw new UsageError(`proxy needs --upstream URL (the provider's base URL: https://api.anthropic.com, https://api.openai.com/v1, http://127.0.0.1:11434/v1)\nusage: loop-sentinel ${PROXY_USAGE}`);
  upstreamOk(upstream, "--upstream");
  const portText = flag(args, "port");
  const port = portText === undefined ? 0 : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port needs a port number (0-65535), got ${quoted(portText ?? "")}`);
  const config = loadCliConfig(flag(args, "config"), args.flags.get("set") ?? [], io.err);
  const json = args.flags.has("json");
  const guard = new StreamGuardProxy({ upstream, port, config: () => config, report: printer(io, json, Date.now()), toolsByHook: args.flags.has("tools-by-hook") });
  let url: string;
  try { url = await guard.listen(); } catch (err) { io.err(`loop-sentinel proxy: cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`); return 1; }
  io.out(json ? JSON.stringify({ type: "listening", url, upstream: new URL(upstream).origin }) : url);
  await new Promise<void>((resolve) => {
    const finish = () => { process.off("SIGINT", finish); process.off("SIGTERM", finish); control.signal?.removeEventListener("abort", finish); resolve(); };
    process.on("SIGINT", finish);
    process.on("SIGTERM", finish);
    control.signal?.addEventListener("abort", finish);
  });
  await guard.close();
  const s = guard.stats;
  if (json) io.out(JSON.stringify({ type: "done", ...s }));
  else io.out(`done: ${s.requests} request(s), ${s.guarded} guarded, ${s.cuts} cut, ${s.answeredHere} answered by the guard`);
  return 0;
}

type KnownAgent = "claude" | "codex" | "copilot" | "gemini";

/** The agent a command runs, by its program's name. */
export function agentOf(command: string): KnownAgent | undefined {
  const base = path.basename(command).replace(/\.(cmd|exe|js|mjs|cjs)$/i, "").toLowerCase();
  return base === "claude" || base === "codex" || base === "copilot" || base === "gemini" ? base : undefined;
}

/** Codex's configured provider and its base URL, read from `$CODEX_HOME/config.toml` (the few lines that matter, not a TOML parser). */
export function codexProvider(env: NodeJS.ProcessEnv): { id: string; baseUrl?: string } | undefined {
  const home = env.CODEX_HOME || path.join(env.HOME || os.homedir(), ".codex");
  let text: string;
  try { text = fs.readFileSync(path.join(home, "config.toml"), "utf8"); } catch { return undefined; }
  const lines = text.split(/\r?\n/);
  let section = "";
  let id: string | undefined;
  const baseUrls = new Map<string, string>();
  for (const raw of lines) {
    const line = raw.replace(/\s+#.*$/, "").trim();
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) { section = header[1].replace(/"/g, ""); continue; }
    const kv = /^([A-Za-z0-9_.-]+)\s*=\s*["']([^"']*)["']$/.exec(line);
    if (!kv) continue;
    if (section === "" && kv[1] === "model_provider") id = kv[2];
    const m = /^model_providers\.(.+)$/.exec(section);
    if (m && kv[1] === "base_url") baseUrls.set(m[1], kv[2]);
  }
  if (!id) return undefined;
  return { id, baseUrl: baseUrls.get(id) };
}

interface Pointing { upstream: string; env: Record<string, string>; args: string[] }

/** Where the agent's requests would have gone, and how to send them to the guard instead. */
function pointAgent(agent: KnownAgent | undefined, envName: string | undefined, given: string | undefined, env: NodeJS.ProcessEnv, guardUrl: string, command: string[]): Pointing {
  const via = (name: string, fallback: string | undefined): Pointing => {
    const upstream = given ?? env[name] ?? fallback;
    if (!upstream) throw new UsageError(`run: ${name} is not set, so there is no endpoint to guard; give --upstream URL`);
    return { upstream, env: { [name]: guardUrl }, args: command };
  };
  if (envName !== undefined) return via(envName, undefined);
  switch (agent) {
    case "claude": return via("ANTHROPIC_BASE_URL", "https://api.anthropic.com");
    case "gemini": return via("GOOGLE_GEMINI_BASE_URL", "https://generativelanguage.googleapis.com");
    case "copilot":
      if (!given && !env.COPILOT_PROVIDER_BASE_URL) throw new UsageError("run: the Copilot CLI is guarded with its own provider only (BYOK: COPILOT_PROVIDER_BASE_URL); without one it talks to GitHub's service, which the guard does not sit in front of");
      return via("COPILOT_PROVIDER_BASE_URL", undefined);
    case "codex": {
      const p = codexProvider(env);
      if (p && p.id !== "openai" && p.baseUrl) {
        // A provider of the user's: its base URL is overridden for this run only (`-c`, before the subcommand).
        return { upstream: given ?? p.baseUrl, env: {}, args: [command[0], "-c", `model_providers.${p.id}.base_url=${JSON.stringify(guardUrl)}`, ...command.slice(1)] };
      }
      return via("OPENAI_BASE_URL", "https://api.openai.com/v1");
    }
    default:
      throw new UsageError(`run: ${quoted(command[0])} is not an agent the guard knows (claude, codex, copilot, gemini); say which variable holds its endpoint with --env NAME`);
  }
}

export async function runRun(argv: string[], io: CliIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const dash = argv.indexOf("--");
  if (dash === -1 || dash === argv.length - 1) throw new UsageError(`run needs the agent's command after --\nusage: loop-sentinel ${RUN_USAGE}`);
  const args = parseArgs(argv.slice(0, dash), ["upstream", "env", "config", "set"], ["json"]);
  if (args.positionals.length) throw new UsageError(`unexpected argument ${quoted(args.positionals[0])} (the agent's command goes after --)`);
  const command = argv.slice(dash + 1);
  const given = flag(args, "upstream");
  if (given !== undefined) upstreamOk(given, "--upstream");
  const envName = flag(args, "env");
  if (envName !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(envName)) throw new UsageError(`--env needs a variable name, got ${quoted(envName)}`);
  const config = loadCliConfig(flag(args, "config"), args.flags.get("set") ?? [], io.err);
  const agent = agentOf(command[0]);
  // Where the agent would have gone is decided before a guard exists: a usage error starts nothing.
  const planned = pointAgent(agent, envName, given, env, "http://127.0.0.1:0/placeholder", command);
  upstreamOk(planned.upstream, "the agent's endpoint");
  // The guard prints to stderr: stdout is the agent's.
  const report = printer({ out: io.err, err: io.err }, args.flags.has("json"), Date.now());
  // Where Loop Sentinel's hook is installed for this agent (user-wide or in this project), the hook
  // acts on tool findings and the guard on the stream alone: one finding, one intervention.
  const hooked = agent !== undefined && agent !== "gemini" && [undefined, process.cwd()].some((project) => {
    try { return agentHookStatus(agent, project, env).state === "installed"; } catch { return false; }
  });
  const guard = new StreamGuardProxy({ upstream: planned.upstream, config: () => config, report, toolsByHook: hooked });
  await guard.listen();
  const pointing = pointAgent(agent, envName, given, env, guard.sessionUrl("run"), command);
  // (the token stays out of what is printed: only the agent needs it)
  const what = { type: "guarding", agent: agent ?? envName, guard: guard.url.replace(/\/[^/]*$/, "/…"), upstream: new URL(pointing.upstream).origin, toolsByHook: hooked };
  io.err(args.flags.has("json") ? JSON.stringify(what) : `loop-sentinel run: guarding ${what.agent} at ${what.guard} -> ${what.upstream}${hooked ? " (tool calls left to Loop Sentinel's hook)" : ""}`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(pointing.args[0], pointing.args.slice(1), { stdio: "inherit", env: { ...env, ...pointing.env } });
    // Ctrl-C reaches the agent too (same terminal): the guard stays up until the agent has ended.
    const keep = () => {};
    process.on("SIGINT", keep);
    const term = () => child.kill("SIGTERM");
    process.on("SIGTERM", term);
    const done = (c: number) => { process.off("SIGINT", keep); process.off("SIGTERM", term); resolve(c); };
    child.on("error", (err) => { io.err(`loop-sentinel run: cannot start ${quoted(command[0])}: ${err.message}`); done(127); });
    child.on("exit", (c, signal) => done(c ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0)));
  });
  await guard.close();
  return code;
}
