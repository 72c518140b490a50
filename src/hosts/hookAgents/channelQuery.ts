/**
 * An agent's hook call on the local channel (hosts/cline/hookProtocol.ts): the channel's request
 * names a task, a tool and its input; the whole call rides in the input and the task id says
 * whose it is. Agents' hooks use their own folder in the channel, so a Cline server never sees them.
 */
import * as path from "node:path";
import { isRecord } from "../../engine/json";
import { channelDir, type HookQuery } from "../cline/hookProtocol";
import { AGENT_NAMES, type AgentCall, type AgentName } from "./dialect";

/** The folder where a running Loop Sentinel listens for the agents' hooks (beside Cline's). */
export function agentChannelDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(channelDir(env), "agents");
}

/** A hook call as a channel query. */
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
  if (c.point !== "pre" && c.point !== "post" && c.point !== "permission" && c.point !== "prompt") return undefined;
  return { ...(c as unknown as AgentCall), input: isRecord(c.input) ? c.input : {} };
}

