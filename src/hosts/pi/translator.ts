/**
 * pi extension events → neutral trace events, for one pi session. Pure: the extension (or a test)
 * passes each event with the time it arrived.
 *
 * What pi 0.73.1 emits to an extension for one prompt, in order (read from its agent loop and
 * confirmed in the e2e runs): `before_agent_start` {prompt} for a prompt the user (or another
 * extension, through `sendUserMessage`) sent; per model request `message_start` of the assistant
 * message, `message_update` per streamed piece (`thinking_delta` / `text_delta` carry the text),
 * `message_end` with the finished message (usage, `stopReason` "aborted" when cut); then per call
 * `tool_call` {toolCallId, toolName, input} before it runs (the one place it can be refused) and
 * `tool_result` {content, isError} after it ran. A refused call gets no `tool_result`.
 */
import { BoundedMap } from "../../engine/boundedMap";
import type { TraceEvent, Usage } from "../../engine/events";
import { canonicalJson, isRecord, sumNumbers } from "../../engine/json";
import { contentText } from "../transcriptValues";
import type { PiMessage, PiStreamPiece, PiToolCallEvent, PiToolResultEvent } from "./piApi";

/** Calls remembered (their key, and each key's last answer) to stand a refused call's answer. */
const MAX_CALLS = 1024;

interface Answer { ok: boolean; output: string }

function usageOf(u: unknown): Usage | undefined {
  if (!isRecord(u)) return undefined;
  const tokensIn = sumNumbers(u.input, u.cacheRead, u.cacheWrite);
  const tokensOut = sumNumbers(u.output);
  const cost = isRecord(u.cost) ? sumNumbers(u.cost.total) : undefined;
  if (tokensIn === undefined && tokensOut === undefined && cost === undefined) return undefined;
  return { tokensIn, tokensOut, cost };
}

export class PiTranslator {
  private inRequest = false;
  /** Call id → the key of its name and input. */
  private readonly callKeys = new BoundedMap<string, string>(MAX_CALLS);
  /** Key → the last answer a call with that key got. */
  private readonly answers = new BoundedMap<string, Answer>(MAX_CALLS);

  /** A prompt the model will answer (`before_agent_start`). */
  prompt(text: unknown, now: number): TraceEvent[] {
    return typeof text === "string" ? [{ t: "user", text, ts: now }] : [];
  }

  messageStart(message: PiMessage | undefined, now: number): TraceEvent[] {
    if (message?.role !== "assistant") return [];
    this.inRequest = true;
    return [typeof message.model === "string" ? { t: "request", model: message.model, ts: now } : { t: "request", ts: now }];
  }

  messageUpdate(piece: PiStreamPiece | undefined, now: number): TraceEvent[] {
    if (!piece || typeof piece.delta !== "string" || piece.delta === "") return [];
    const kind = piece.type === "thinking_delta" ? "reasoning" : piece.type === "text_delta" ? "text" : undefined;
    if (!kind) return [];
    // A stream seen without its start (the extension loaded mid-response) still opens a request.
    const out: TraceEvent[] = this.inRequest ? [] : [{ t: "request", ts: now }];
    this.inRequest = true;
    out.push({ t: kind, delta: piece.delta, ts: now });
    return out;
  }

  messageEnd(message: PiMessage | undefined, now: number): TraceEvent[] {
    if (message?.role !== "assistant" || !this.inRequest) return [];
    this.inRequest = false;
    const usage = usageOf(message.usage);
    return [usage ? { t: "end", usage, ts: now } : { t: "end", ts: now }];
  }

  toolCall(e: PiToolCallEvent, now: number): TraceEvent[] {
    if (typeof e.toolCallId !== "string" || typeof e.toolName !== "string") return [];
    const input = isRecord(e.input) ? e.input : {};
    this.callKeys.set(e.toolCallId, `${e.toolName}\u0000${canonicalJson(input) ?? ""}`);
    return [{ t: "tool_call", id: e.toolCallId, name: e.toolName, input, ts: now }];
  }

  toolResult(e: PiToolResultEvent, now: number): TraceEvent[] {
    if (typeof e.toolCallId !== "string") return [];
    const answer: Answer = { ok: e.isError !== true, output: contentText(e.content) };
    const key = this.callKeys.peek(e.toolCallId);
    if (key !== undefined) this.answers.set(key, answer);
    return [{ t: "tool_result", id: e.toolCallId, ...answer, ts: now }];
  }

  /**
   * The extension refused this call: it never runs and pi reports no result for it. It stands for
   * the identical call's last answer (what the model already has), so the count of identical
   * calls goes on as if it had run; a refused call never seen answered tells nothing.
   */
  refused(callId: string, now: number): TraceEvent[] {
    const key = this.callKeys.peek(callId);
    const earlier = key === undefined ? undefined : this.answers.peek(key);
    return earlier ? [{ t: "tool_result", id: callId, ...earlier, ts: now }] : [];
  }
}
