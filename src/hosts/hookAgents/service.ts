/**
 * The serving side of the agents' hook: the extension and `loop-sentinel watch --agents` listen on
 * the channel folder's `agents/` subfolder (hookMain.agentChannelDir) and answer each hook call
 * from their own engine sessions, with the per-session state in memory instead of a file. The
 * decision is the headless hook's own (guard.ts), so both answer alike. Plain Node.
 */
import { BoundedMap } from "../../engine/boundedMap";
import type { TraceEvent } from "../../engine/events";
import type { Intervention } from "../../engine/session";
import { HookServer } from "../cline/hookChannel";
import type { HookQuery, HookReply } from "../cline/hookProtocol";
import { AGENT_LABELS, type AgentCall } from "./dialect";
import { decideAgentCall, newSessionState, type AgentSessionState } from "./guard";
import { agentChannelDir, fromChannelQuery } from "./channelQuery";

const MAX_SESSIONS = 64;

export interface AgentHookServiceOptions {
  /** Feeds one event to the session's engine; returns the interventions it caused. */
  feed(sessionKey: string, event: TraceEvent, call: AgentCall): Intervention[];
  /** False while Loop Sentinel is off or warn-only here: every call passes (warn-only still warns through the engine's mode). */
  mayAct?(): boolean;
  /** A hook call was answered (for the log and the status). */
  onAnswer?(call: AgentCall, reply: HookReply): void;
}

/** The engine session key of an agent session: the agent and its own session id. */
export function agentSessionKey(call: Pick<AgentCall, "agent" | "sessionId">): string {
  return `${call.agent}:${call.sessionId}`;
}

export function agentSessionTitle(call: Pick<AgentCall, "agent" | "sessionId">): string {
  return `${AGENT_LABELS[call.agent]} ${call.sessionId.slice(0, 8)}`;
}

export class AgentHookService {
  private readonly sessions = new BoundedMap<string, AgentSessionState>(MAX_SESSIONS);

  constructor(private readonly options: AgentHookServiceOptions) {}

  /** Answers one channel query; queries that are not an agent's are not ours to know. */
  answer(q: HookQuery): HookReply {
    const call = fromChannelQuery(q);
    if (!call) return { known: false, action: "allow" };
    const key = agentSessionKey(call);
    let state = this.sessions.get(key);
    if (!state) { state = newSessionState(call.agent, call.sessionId); this.sessions.set(key, state); }
    const verdict = decideAgentCall(call, state, (e) => this.options.feed(key, e, call));
    // Off or warn-only here: nothing is refused or ended; guidance still goes (the engine's mode makes it so).
    const held = this.options.mayAct && !this.options.mayAct() && verdict.action !== "warn";
    const reply: HookReply = { known: true, action: held ? "allow" : verdict.action };
    if (reply.action !== "allow" && verdict.message) reply.message = verdict.message;
    this.options.onAnswer?.(call, reply);
    return reply;
  }

  /** Listens in the agents' channel folder until the returned server is closed. */
  async serve(env: NodeJS.ProcessEnv = process.env, onError?: (m: string) => void): Promise<HookServer> {
    const server = new HookServer({ dir: agentChannelDir(env), answer: (q) => this.answer(q), onError });
    await server.listen();
    return server;
  }
}
