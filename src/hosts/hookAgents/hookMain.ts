/**
 * Loop Sentinel's tool-call hook for Claude Code, the GitHub Copilot CLI, Codex, Gemini CLI and
 * Qwen Code (bundled as dist/agent-hook.js; `loop-sentinel hooks install` wires it into each
 * agent's settings):
 *
 *   node agent-hook.js <claude|copilot|codex|gemini|qwen> [pre|post|permission] [--config FILE] [--warn-only]
 *
 * Reads the agent's JSON from stdin and asks, in this order: a running Loop Sentinel (the
 * extension or `loop-sentinel watch`) over the local channel, which then shows the session; else
 * the hook decides alone from the session's saved state (headlessState.ts). Prints the answer in
 * the agent's dialect, or nothing. It fails open: a bad input, an error of its own, a folder it
 * cannot trust or its own deadline (well inside the agents' 30 s or more) let the call through.
 */
import * as fs from "node:fs";
import { writeFileAtomic } from "../atomicFile";
import * as path from "node:path";
import * as vm from "node:vm";
import { isRecord } from "../../engine/json";
import { askChannel } from "../cline/hookChannel";
import { channelDir, ensurePrivateDir, HOOK_DEADLINE_MS } from "../cline/hookProtocol";
import { agentChannelDir, toChannelQuery } from "./channelQuery";
import { AGENT_NAMES, agentOutput, parseAgentCall, type AgentName, type Verdict } from "./dialect";
import type * as HeadlessEntry from "./headlessEntry";
import { permissionFromState } from "./sessionFiles";
import { readStdin } from "../hookStdin";

/** The hook answers within this long or lets the call through (the agents wait 30 s and more). */
const HOOK_BUDGET_MS = 5_000;
export interface HookArgs { agent: AgentName; point?: string; settings: Record<string, unknown> }

/** The engine bundle, beside this script (dist/agent-hook-engine.js, or its installed copy). */
export function engineBundleFor(script: string): string {
  return script.replace(/\.js$/, "-engine.js");
}

/** Code cache generations: the first run of a build writes one, the next run (which reads a session back) a fuller one. */
const CACHE_GENERATIONS = 2;

/**
 * Loads the engine bundle with V8's code cache, kept in the user's private channel folder: most of
 * a cold start is compiling it. The cache is bound to the bundle's size, time and Node's version;
 * V8 rejects one that does not fit, and it is made anew. A cache holds the functions its run
 * compiled: the first call of a session never reads a session back, so the second run writes the
 * cache again with what it added, and the runs after it compile almost nothing.
 */
function loadEngine(bundle: string, cacheDir: string): { engine: typeof HeadlessEntry; build: string } {
  const source = fs.readFileSync(bundle, "utf8");
  const st = fs.statSync(bundle);
  const build = `engine-${st.size}-${Math.round(st.mtimeMs)}-${process.version}`;
  const cacheFile = (generation: number) => path.join(cacheDir, `${build}.g${generation}.codecache`);
  let cachedData: Buffer | undefined;
  let generation = CACHE_GENERATIONS;
  for (; generation > 0 && !cachedData; generation--) {
    try { cachedData = fs.readFileSync(cacheFile(generation)); } catch { /* not made yet */ }
  }
  if (cachedData) generation++;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData });
  const mod = { exports: {} as typeof HeadlessEntry };
  (script.runInThisContext() as (...a: unknown[]) => void).call(mod.exports, mod.exports, require, mod, bundle, path.dirname(bundle));
  if (!cachedData || script.cachedDataRejected || generation < CACHE_GENERATIONS) {
    const next = cachedData && !script.cachedDataRejected ? generation + 1 : 1;
    // At exit: the functions this run compiled are in the cache too.
    process.once("exit", () => {
      try {
        const file = cacheFile(next);
        writeFileAtomic(file, script.createCachedData(), 0o600);
        // Caches of earlier bundles (an update) and earlier generations are dead weight.
        for (const f of fs.readdirSync(cacheDir)) if (/^engine-.*\.codecache$/.test(f) && path.join(cacheDir, f) !== file) fs.rmSync(path.join(cacheDir, f), { force: true });
      } catch { /* next time */ }
    });
  }
  return { engine: mod.exports, build };
}

/** The command line the agents run; undefined when it names no agent we know. */
export function parseHookArgs(argv: string[]): HookArgs | undefined {
  const [agent, ...rest] = argv;
  if (!AGENT_NAMES.includes(agent as AgentName)) return undefined;
  let point: string | undefined;
  let raw: Record<string, unknown> = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--config" && rest[i + 1] !== undefined) {
      try {
        const doc: unknown = JSON.parse(fs.readFileSync(rest[++i], "utf8").replace(/^\uFEFF/, ""));
        if (isRecord(doc)) raw = { ...raw, ...(isRecord(doc.loopSentinel) ? doc.loopSentinel : doc) };
      } catch { /* unreadable settings: the defaults */ }
    } else if (a === "--warn-only") raw.mode = "warnOnly";
    else if (!a.startsWith("--") && point === undefined) point = a;
  }
  return { agent: agent as AgentName, point, settings: raw };
}

/** The hook's answer for one stdin text; undefined means print nothing. */
export async function runAgentHook(args: HookArgs, stdinText: string, env: NodeJS.ProcessEnv = process.env, bundle = engineBundleFor(__filename)): Promise<Record<string, unknown> | undefined> {
  const call = parseAgentCall(args.agent, args.point, stdinText);
  if (!call) return undefined;
  let verdict: Verdict | undefined;
  const deadline = Number(env.LOOP_SENTINEL_HOOK_DEADLINE_MS ?? HOOK_DEADLINE_MS);
  const reply = await askChannel(agentChannelDir(env), toChannelQuery(call), Number.isFinite(deadline) && deadline > 0 ? deadline : HOOK_DEADLINE_MS);
  if (reply?.known) verdict = { action: reply.action, message: reply.message };
  else {
    const channel = channelDir(env);
    ensurePrivateDir(channel); // the code cache and the session state are read from there: only from a folder that is the user's alone
    // Nothing for the engine to judge (Copilot's permissionRequest with no stop held): answered without loading it.
    verdict = permissionFromState(call, channel);
    if (!verdict) {
      const { engine, build } = loadEngine(bundle, channel);
      verdict = engine.decideHeadless(call, { channel, config: engine.configFrom(args.settings), engineBuild: build });
    }
  }
  return agentOutput(call, verdict);
}

if (require.main === module) {
  // Whatever happens, the agent gets an answer in time: nothing printed lets the call through.
  const watchdog = setTimeout(() => process.exit(0), HOOK_BUDGET_MS);
  const args = parseHookArgs(process.argv.slice(2));
  if (!args) process.exit(0);
  readStdin()
    .then((text) => runAgentHook(args, text))
    .catch(() => undefined)
    .then((out) => {
      clearTimeout(watchdog);
      if (out) process.stdout.write(JSON.stringify(out) + "\n");
      process.exit(0);
    });
}
