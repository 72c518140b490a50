/**
 * Loop Sentinel's tool-call hook for Claude Code, the GitHub Copilot CLI and Codex (bundled as
 * dist/agent-hook.js; `loop-sentinel hooks install` wires it into each agent's settings):
 *
 *   node agent-hook.js <claude|copilot|codex> [pre|post|permission] [--config FILE] [--warn-only]
 *
 * Reads the agent's JSON from stdin and asks, in this order: a running Loop Sentinel (the
 * extension or `loop-sentinel watch`) over the local channel, which then shows the session; else
 * the hook decides alone from the session's saved state (headlessState.ts). Prints the answer in
 * the agent's dialect, or nothing. It fails open: a bad input, an error of its own, a folder it
 * cannot trust or its own deadline (well inside the agents' 30 s or more) let the call through.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { resolveConfig, type EngineConfig } from "../../engine/config";
import { isRecord } from "../../engine/json";
import { askChannel } from "../cline/hookChannel";
import { channelDir, HOOK_DEADLINE_MS, type HookQuery } from "../cline/hookProtocol";
import { AGENT_NAMES, agentOutput, parseAgentCall, type AgentCall, type AgentName, type Verdict } from "./dialect";
import { decideHeadless } from "./headlessState";

/** The hook answers within this long or lets the call through (the agents wait 30 s and more). */
const HOOK_BUDGET_MS = 5_000;
const STDIN_MS = 1_000;
const MAX_STDIN_BYTES = 8 * 1024 * 1024;

/** The folder where a running Loop Sentinel listens for the agents' hooks (beside Cline's). */
export function agentChannelDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(channelDir(env), "agents");
}

/**
 * A hook call as a channel query: the channel's request shape names a task, a tool and its input;
 * the whole call rides in the input and the task id says whose it is.
 */
export function toChannelQuery(call: AgentCall): HookQuery {
  const query: HookQuery = { engine: "sdk", taskId: `agent:${call.agent}:${call.sessionId}`, toolName: call.toolName, input: { agentCall: call } };
  if (call.toolCallId) query.toolCallId = call.toolCallId;
  return query;
}

/** The call back out of a channel query; undefined for a query that is not an agent's. */
export function fromChannelQuery(q: HookQuery): AgentCall | undefined {
  if (!q.taskId.startsWith("agent:")) return undefined;
  const c = q.input.agentCall;
  if (!isRecord(c) || typeof c.sessionId !== "string" || typeof c.toolName !== "string" || !AGENT_NAMES.includes(c.agent as AgentName)) return undefined;
  if (c.point !== "pre" && c.point !== "post" && c.point !== "permission") return undefined;
  return { ...(c as unknown as AgentCall), input: isRecord(c.input) ? c.input : {} };
}

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => { clearTimeout(timer); resolve(Buffer.concat(chunks).toString("utf8")); };
    const timer = setTimeout(done, STDIN_MS);
    process.stdin.on("data", (c: Buffer) => { size += c.length; if (size <= MAX_STDIN_BYTES) chunks.push(c); });
    process.stdin.on("end", done);
    process.stdin.on("error", done);
  });
}

export interface HookArgs { agent: AgentName; point?: string; config: EngineConfig }

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
  return { agent: agent as AgentName, point, config: resolveConfig(raw).config };
}

/** The hook's answer for one stdin text; undefined means print nothing. */
export async function runAgentHook(args: HookArgs, stdinText: string, env: NodeJS.ProcessEnv = process.env): Promise<Record<string, unknown> | undefined> {
  const call = parseAgentCall(args.agent, args.point, stdinText);
  if (!call) return undefined;
  let verdict: Verdict | undefined;
  const deadline = Number(env.LOOP_SENTINEL_HOOK_DEADLINE_MS ?? HOOK_DEADLINE_MS);
  const reply = await askChannel(agentChannelDir(env), toChannelQuery(call), Number.isFinite(deadline) && deadline > 0 ? deadline : HOOK_DEADLINE_MS);
  if (reply?.known) verdict = { action: reply.action, message: reply.message };
  else verdict = decideHeadless(call, { channel: channelDir(env), config: args.config });
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
