/**
 * Copilot CLI's session events (`$COPILOT_HOME/session-state/<session-id>/events.jsonl`, written by
 * Copilot CLI 1.0.102 as the run goes; `--output-format json` prints the same events) as trace
 * events, one line at a time.
 *
 * Every line is `{type, data, id, timestamp, parentId}`. `user.message` {content} is what the user
 * typed (`transformedContent` is it with the CLI's additions). One model response is one
 * `assistant.message` {model, content, reasoningText?, toolRequests: [{toolCallId, name,
 * arguments}]}, preceded by its `session.usage_record`. A call runs between `tool.execution_start`
 * and `tool.execution_complete` {toolCallId, success, result.content | error, shellExecution.exitCode}.
 * Turn markers, hooks, the system prompt and session bookkeeping carry nothing to replay; a
 * sub-agent's events (a top-level `agentId`) are its own session, not the main agent's steps.
 */
import { BoundedMap } from "../../engine/boundedMap";
import type { TraceEvent, Usage } from "../../engine/events";
import { isRecord, safeJsonStringify, sumNumbers, toMillis } from "../../engine/json";
import { EventOut, type LineOutcome, type LineTranslator } from "../lineTranslation";

/** Calls awaiting their result held at once: past it the oldest is forgotten (its result is then set aside). */
const MAX_PENDING_CALLS = 1024;

/** Records that end the model's response when one is open: what follows it is not the model speaking. */
const ENDS_RESPONSE = new Set(["assistant.turn_end", "abort", "session.shutdown", "session.error"]);

/**
 * The note the bash tool adds after a command's output (`<shellId: 3 completed with exit code 0>`).
 * Its shell number grows with every command, so it is not the command's output: two identical
 * listings would differ by it.
 */
const SHELL_NOTE = /\n?<shellId: [^>\n]*>\s*$/;

function resultText(data: Record<string, unknown>): string {
  const result = isRecord(data.result) ? data.result : undefined;
  if (result && typeof result.content === "string") return result.content.replace(SHELL_NOTE, "");
  if (result && typeof result.detailedContent === "string") return result.detailedContent;
  const error = data.error;
  if (typeof error === "string") return error;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  return result === undefined ? "" : safeJsonStringify(result);
}

export class CopilotEventsTranslator implements LineTranslator {
  private readonly out = new EventOut();
  /** Calls requested and not yet finished: a start with no request before it still makes a call. */
  private readonly pending = new BoundedMap<string, true>(MAX_PENDING_CALLS);
  /** The usage of the response about to be recorded (its record comes first). */
  private usage: Usage | undefined;

  feed(value: unknown): LineOutcome {
    if (!isRecord(value) || typeof value.type !== "string") return { events: [], error: `expected an event {"type", "data", "timestamp"} with a string "type"` };
    // A sub-agent's events carry its `agentId`; the main agent's and the session's have none.
    if (typeof value.agentId === "string" && value.agentId !== "") return { events: [], ignored: "sub-agent event" };
    const data = isRecord(value.data) ? value.data : undefined;
    // `--output-format json` ends with the run's summary, the one line without data.
    if (!data && value.type === "result") return { events: [], ignored: "the run's summary (printed on stdout)" };
    if (!data) return { events: [], error: `"${value.type}" event needs a "data" object` };
    const result = this.event(value.type, data, toMillis(value.timestamp));
    const events = this.out.take();
    if (typeof result === "object") return { events, error: result.error };
    return result === undefined ? { events } : { events, ignored: result };
  }

  finish(): TraceEvent[] {
    this.out.end(undefined);
    return this.out.take();
  }

  private event(type: string, d: Record<string, unknown>, ts: number | undefined): string | { error: string } | undefined {
    switch (type) {
      case "user.message": {
        const text = typeof d.content === "string" ? d.content : typeof d.transformedContent === "string" ? d.transformedContent : "";
        if (text.trim() === "") return "user message without text";
        this.out.user(text, ts);
        return undefined;
      }
      case "session.usage_record": {
        const u = isRecord(d.usage) ? d.usage : undefined;
        if (u) this.usage = { tokensIn: sumNumbers(u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens), tokensOut: sumNumbers(u.outputTokens), cost: sumNumbers(u.cost) };
        return "usage record (kept for its response)";
      }
      case "assistant.message": {
        this.out.request(ts, typeof d.model === "string" ? d.model : undefined, this.usage);
        this.usage = undefined;
        if (typeof d.reasoningText === "string") this.out.reasoning(d.reasoningText, ts);
        if (typeof d.content === "string") this.out.text(d.content, ts);
        const requests = Array.isArray(d.toolRequests) ? d.toolRequests : [];
        for (const r of requests) {
          if (!isRecord(r) || typeof r.toolCallId !== "string" || typeof r.name !== "string") return { error: `a tool request needs a string "toolCallId" and "name"` };
          this.out.toolCall(r.toolCallId, r.name, isRecord(r.arguments) ? r.arguments : r.arguments === undefined ? {} : { input: r.arguments }, ts);
          this.pending.set(r.toolCallId, true);
        }
        return undefined;
      }
      case "tool.execution_start": {
        if (typeof d.toolCallId !== "string") return { error: `"tool.execution_start" needs a string "toolCallId"` };
        if (this.pending.peek(d.toolCallId) !== undefined) { this.out.end(ts); return "tool start (the call is in its response)"; }
        if (typeof d.toolName !== "string") return { error: `"tool.execution_start" needs a string "toolName"` };
        this.out.toolCall(d.toolCallId, d.toolName, isRecord(d.arguments) ? d.arguments : {}, ts);
        this.pending.set(d.toolCallId, true);
        this.out.end(ts);
        return undefined;
      }
      case "tool.execution_complete": {
        if (typeof d.toolCallId !== "string") return { error: `"tool.execution_complete" needs a string "toolCallId"` };
        if (this.pending.peek(d.toolCallId) === undefined) { this.out.end(ts); return "result of a call never requested (a sub-agent's, or before the file began)"; }
        this.pending.delete(d.toolCallId);
        const shell = isRecord(d.shellExecution) ? d.shellExecution : undefined;
        const exit = shell && typeof shell.exitCode === "number" ? shell.exitCode : 0;
        this.out.toolResult(d.toolCallId, d.success !== false && exit === 0, resultText(d), ts);
        return undefined;
      }
      default:
        if (ENDS_RESPONSE.has(type)) { this.out.end(ts); return `"${type}" event (ends the response)`; }
        return `"${type}" event (nothing to replay)`;
    }
  }
}
