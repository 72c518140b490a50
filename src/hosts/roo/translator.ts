/**
 * Where a Roo Code (or Kilo Code) message becomes trace events. One translator per task: it turns
 * the `message` event stream (or a task's `ui_messages.json`, message by message) into the engine's
 * events. Pure: no `vscode`, no clock (the caller passes the receipt time), used live by the adapter
 * and on files by the `roo-task` reader.
 *
 * Message → event:
 * - `say:api_req_started` created → `request`; its update with tokens/cost (or a cancel) → `end` with usage.
 * - `say:reasoning` / `say:text` / `say:completion_result` (cumulative snapshots) → `reasoning` / `text` deltas.
 * - the task's first `say:text` (the prompt), `say:user_feedback[_diff]` → `user` (unless it is our own guidance).
 * - approval asks (`tool`, `command`, `use_mcp_server`, `followup`) → `tool_call`, once, at the complete ask.
 *   A partial ask's arguments are not the call's: Roo 3.52 shows a `readFile` ask with the workspace
 *   folder as `path` before the arguments stream in, and completes the ask only when it approves it
 *   (auto-approval included), often after the request's usage arrived.
 * - a tool ask left partial when the next request starts (no cancel, no resume in between) is a call
 *   Roo refused before asking (a mode's tool restriction): a `tool_call` with no arguments and a failed
 *   `tool_result`. Live, Roo shows nothing else of it.
 * - `say:command_output`, `say:mcp_server_response`, `say:codebase_search_result` → `tool_result` ok;
 *   `say:error|diff_error|rooignore_error` after a call, and `taskToolFailed` → `tool_result` failed;
 *   a missing-parameter error → a failed call of its own (Roo never asks for it).
 */
import type { TraceEvent, Usage } from "../../engine/events";
import { BoundedMap } from "../../engine/boundedMap";
import { advance, continueCursor, newCursor, type CumulativeCursor } from "./cumulativeText";
import { parseApiRequestInfo, RESUME_ASKS, type RooMessage } from "./messages";
import { missingParameterCall, TOOL_ASKS, toolCallOfAsk, type RooToolCall } from "./toolCalls";

/** Tool asks remembered per task (a task's calls; older ones are settled long before). */
const MAX_ASKS_PER_TASK = 64;
/** Text messages whose streams are tracked at once per task. */
const MAX_TEXT_STREAMS = 8;

export interface AskInfo {
  /** Tool call id given to the engine: `roo-<ts>`. */
  id: string;
  ts: number;
  ask: string;
  call?: RooToolCall;
  /** The engine has seen the call. */
  emitted: boolean;
  /** Roo sent the complete ask (partial !== true). */
  complete: boolean;
  /** Roo marked it answered (approved, including auto-approval). */
  answered: boolean;
  /** A result (or failure) was passed on. */
  settled: boolean;
  /** Request the ask belongs to. */
  request: number;
}

export interface TranslatorOptions {
  /**
   * Whether user text is Loop Sentinel's own guidance coming back (it must not count as a user
   * message: that would reset the engine's counts). Consumes the match.
   */
  isOwnEcho?(text: string): boolean;
}

interface RequestState {
  ts: number;
  index: number;
  ended: boolean;
  /** Cancelled, or the task was resumed or the user spoke since it began: its open asks were not refused. */
  interrupted: boolean;
  /** Its `end`, held until its tool asks complete (or the next request begins). */
  heldEnd?: TraceEvent;
}

/** The outcome of a call Roo dropped without an approval ask or a result (see refuseAbandonedAsks). */
export const REFUSED_BEFORE_APPROVAL = "refused by the host before it ran: no approval was asked and no result came back (the current mode may not allow this tool)";

function refusedCallName(a: AskInfo): string {
  return a.call?.name ?? (a.ask === "command" ? "execute_command" : a.ask === "followup" ? "ask_followup_question" : a.ask);
}

export function toolCallId(ts: number): string {
  return `roo-${ts}`;
}

export class RooTaskTranslator {
  /** First user text (the task prompt), for titles. */
  title: string | undefined;
  private requests = 0;
  private request: RequestState | undefined;
  /** Usage that arrived for an older request after a newer one began: carried on the next boundary. */
  private carriedUsage: Usage | undefined;
  private reasoning: { ts: number; cursor: CumulativeCursor; request: number } | undefined;
  private finishedReasoning = new Set<number>();
  private texts = new BoundedMap<number, { cursor: CumulativeCursor; channel: "text"; done: boolean }>(MAX_TEXT_STREAMS);
  private asks = new BoundedMap<number, AskInfo>(MAX_ASKS_PER_TASK);
  private messagesSeen = 0;
  private seenTs = new BoundedMap<number, true>(2048);

  constructor(private readonly options: TranslatorOptions = {}) {}

  /** The ask with this tool call id, if still remembered. */
  askFor(id: string): AskInfo | undefined {
    const ts = Number(id.startsWith("roo-") ? id.slice(4) : NaN);
    return Number.isFinite(ts) ? this.asks.peek(ts) : undefined;
  }

  /** One `message` event (or one message read from disk). `now` stamps the events (defaults to message ts). */
  message(action: "created" | "updated", m: RooMessage, now?: number): TraceEvent[] {
    const out: TraceEvent[] = [];
    const ts = now ?? m.ts;
    const firstTimeSeen = !this.seenTs.peek(m.ts);
    if (firstTimeSeen) { this.seenTs.set(m.ts, true); this.messagesSeen++; }
    const complete = m.partial !== true;
    if (m.type === "say") this.say(m, action, complete, firstTimeSeen, ts, out);
    else this.ask(m, complete, ts, out);
    return out;
  }

  /** Roo's `taskToolFailed(taskId, tool, error)` event. */
  toolFailed(tool: string, error: string, now?: number): TraceEvent[] {
    const out: TraceEvent[] = [];
    const call = this.latestUnsettled((a) => a.call?.name === tool) ?? this.latestUnsettled(() => true);
    if (call) this.settle(call, false, error, now, out);
    return out;
  }

  private say(m: RooMessage, action: "created" | "updated", complete: boolean, firstTimeSeen: boolean, ts: number, out: TraceEvent[]): void {
    switch (m.say) {
      case "api_req_started":
        this.apiRequest(m, firstTimeSeen, ts, out);
        return;
      case "reasoning":
        this.reasoningSnapshot(m, complete, ts, out);
        return;
      case "text":
        // The prompt is created in one piece (partial absent); assistant text carries partial true/false.
        if (firstTimeSeen && action === "created" && m.partial === undefined && this.requests === 0 && this.messagesSeen === 1) {
          this.userText(m.text ?? "", ts, out);
          return;
        }
        this.textSnapshot(m, complete, ts, out);
        return;
      case "completion_result":
        this.textSnapshot(m, complete, ts, out);
        return;
      case "user_feedback":
      case "user_feedback_diff":
        if (firstTimeSeen) this.userText(m.text ?? "", ts, out);
        return;
      case "command_output":
        if (complete) this.result((a) => a.call?.name === "execute_command", true, m.text ?? "", ts, out);
        return;
      case "mcp_server_response":
        if (complete) this.result((a) => a.ask === "use_mcp_server", true, m.text ?? "", ts, out);
        return;
      case "codebase_search_result":
        if (complete) this.result((a) => a.call?.name === "codebase_search", true, m.text ?? "", ts, out);
        return;
      case "error":
      case "diff_error":
      case "rooignore_error": {
        if (!firstTimeSeen) return;
        const missing = missingParameterCall(m.text);
        if (missing) {
          // The call never reached an ask: it exists only as this error.
          const id = `${toolCallId(m.ts)}-missing`;
          out.push({ t: "tool_call", id, name: missing.name, input: {}, ts });
          out.push({ t: "tool_result", id, ok: false, error: m.text ?? "", ts });
          return;
        }
        this.result(() => true, false, m.text ?? "", ts, out);
        return;
      }
      default:
        return;
    }
  }

  private ask(m: RooMessage, complete: boolean, ts: number, out: TraceEvent[]): void {
    if (m.ask && RESUME_ASKS.has(m.ask) && this.request) this.request.interrupted = true;
    if (!m.ask || !TOOL_ASKS.has(m.ask)) return;
    let info = this.asks.peek(m.ts);
    if (!info) {
      info = { id: toolCallId(m.ts), ts: m.ts, ask: m.ask, emitted: false, complete: false, answered: false, settled: false, request: this.requests };
      this.asks.set(m.ts, info);
    }
    if (!info.emitted) {
      const call = toolCallOfAsk(m.ask, m.text);
      if (call) info.call = call;
    }
    if (m.isAnswered) info.answered = true;
    if (complete) {
      info.complete = true;
      this.emitCall(info, ts, out);
    }
  }

  private emitCall(info: AskInfo, ts: number, out: TraceEvent[]): void {
    if (info.emitted || !info.call) return;
    info.emitted = true;
    out.push({ t: "tool_call", id: info.id, name: info.call.name, input: info.call.input, ts });
    if (this.request?.index === info.request && !this.openAsks(info.request)) this.flushEnd(this.request, out);
  }

  /** Tool asks of that request still partial and not passed on. */
  private openAsks(request: number): boolean {
    for (const a of this.asks.values()) if (a.request === request && !a.complete && !a.emitted) return true;
    return false;
  }

  private flushEnd(request: RequestState, out: TraceEvent[]): void {
    if (!request.heldEnd) return;
    out.push(request.heldEnd);
    request.heldEnd = undefined;
  }

  /**
   * A new request began while tool asks of the previous one were still partial: Roo never asked for
   * approval and ran nothing, so it refused them (Architect mode refuses `execute_command` this way).
   * Each is a failed call, without arguments (a partial ask's are placeholders).
   */
  private refuseAbandonedAsks(previous: RequestState, ts: number, out: TraceEvent[]): void {
    if (previous.interrupted) return;
    for (const a of this.asks.values()) {
      if (a.request !== previous.index || a.complete || a.emitted) continue;
      a.emitted = true;
      a.settled = true;
      out.push({ t: "tool_call", id: a.id, name: refusedCallName(a), input: {}, ts });
      out.push({ t: "tool_result", id: a.id, ok: false, error: REFUSED_BEFORE_APPROVAL, ts });
    }
  }

  private apiRequest(m: RooMessage, firstTimeSeen: boolean, ts: number, out: TraceEvent[]): void {
    const info = parseApiRequestInfo(m.text);
    const usage = usageOf(info);
    if (firstTimeSeen) {
      if (this.request) {
        this.refuseAbandonedAsks(this.request, ts, out);
        this.flushEnd(this.request, out);
        // Its usage may still come (Roo sometimes reports it after the next request began): it is
        // carried on a later request, but this one has ended.
        if (!this.request.ended) { this.request.ended = true; out.push({ t: "end", ts }); }
      }
      this.requests++;
      this.request = { ts: m.ts, index: this.requests, ended: false, interrupted: !!info.cancelReason };
      this.reasoning = undefined;
      this.finishedReasoning.clear();
      const ev: TraceEvent = { t: "request", ts };
      const carried = mergeUsage(this.carriedUsage, usage);
      this.carriedUsage = undefined;
      if (carried) ev.usage = carried;
      out.push(ev);
      if (usage || info.cancelReason) this.request.ended = true;
      return;
    }
    if (!usage && !info.cancelReason) return;
    if (this.request && this.request.ts === m.ts) {
      if (this.request.ended) return;
      this.request.ended = true;
      if (info.cancelReason) this.request.interrupted = true;
      const ev: TraceEvent = { t: "end", ts };
      if (usage) ev.usage = usage;
      // Roo often reports usage before it completes the request's tool ask (it completes it on
      // approval): the call belongs to this request, so its end waits for it.
      if (this.openAsks(this.request.index) && !info.cancelReason) this.request.heldEnd = ev;
      else out.push(ev);
    } else if (usage) {
      // Usage of an earlier request, drained after the next one began.
      this.carriedUsage = mergeUsage(this.carriedUsage, usage);
    }
  }

  private reasoningSnapshot(m: RooMessage, complete: boolean, ts: number, out: TraceEvent[]): void {
    const text = m.text ?? "";
    const r = this.reasoning;
    if (r && m.ts < r.ts) return; // an older reasoning message of this request: its text is in the newer one
    if (this.finishedReasoning.has(m.ts)) return;
    let cursor: CumulativeCursor;
    if (r && r.ts === m.ts) cursor = r.cursor;
    else if (r && r.request === this.requests) cursor = continueCursor(r.cursor); // Roo repeats the request's reasoning so far
    else cursor = newCursor();
    this.reasoning = { ts: m.ts, cursor, request: this.requests };
    const delta = advance(cursor, text, complete);
    if (complete) this.finishedReasoning.add(m.ts);
    if (delta) out.push({ t: "reasoning", delta, ts });
  }

  private textSnapshot(m: RooMessage, complete: boolean, ts: number, out: TraceEvent[]): void {
    let s = this.texts.get(m.ts);
    if (!s) { s = { cursor: newCursor(), channel: "text", done: false }; this.texts.set(m.ts, s); }
    if (s.done) return;
    const delta = advance(s.cursor, m.text ?? "", complete);
    if (complete) s.done = true;
    if (delta) out.push({ t: "text", delta, ts });
  }

  private userText(text: string, ts: number, out: TraceEvent[]): void {
    if (this.options.isOwnEcho?.(text)) return;
    if (this.title === undefined && text.trim() !== "") this.title = text.trim().split("\n", 1)[0].slice(0, 120);
    out.push({ t: "user", text, ts });
  }

  /** The newest call of the current request still waiting for its outcome (outcomes never cross requests). */
  private latestUnsettled(match: (a: AskInfo) => boolean): AskInfo | undefined {
    let found: AskInfo | undefined;
    for (const a of this.asks.values()) {
      if (a.emitted && !a.settled && a.request === this.requests && match(a) && (!found || a.ts > found.ts)) found = a;
    }
    return found;
  }

  private result(match: (a: AskInfo) => boolean, ok: boolean, text: string, ts: number | undefined, out: TraceEvent[]): void {
    const call = this.latestUnsettled(match);
    if (call) this.settle(call, ok, text, ts, out);
  }

  private settle(call: AskInfo, ok: boolean, text: string, ts: number | undefined, out: TraceEvent[]): void {
    call.settled = true;
    const ev: TraceEvent = ok ? { t: "tool_result", id: call.id, ok, output: text } : { t: "tool_result", id: call.id, ok, error: text };
    if (ts !== undefined) ev.ts = ts;
    out.push(ev);
  }
}

function usageOf(info: ReturnType<typeof parseApiRequestInfo>): Usage | undefined {
  if (info.tokensIn === undefined && info.tokensOut === undefined && info.cost === undefined) return undefined;
  const u: Usage = {};
  if (info.tokensIn !== undefined) u.tokensIn = info.tokensIn;
  if (info.tokensOut !== undefined) u.tokensOut = info.tokensOut;
  if (info.cost !== undefined) u.cost = info.cost;
  return u;
}

function mergeUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  const sum = (x?: number, y?: number) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const u: Usage = {};
  const tokensIn = sum(a.tokensIn, b.tokensIn); if (tokensIn !== undefined) u.tokensIn = tokensIn;
  const tokensOut = sum(a.tokensOut, b.tokensOut); if (tokensOut !== undefined) u.tokensOut = tokensOut;
  const cost = sum(a.cost, b.cost); if (cost !== undefined) u.cost = cost;
  return u;
}

/** Translators for many tasks, one each, least recently active forgotten past a bound. */
export class RooTranslator {
  private readonly tasks: BoundedMap<string, RooTaskTranslator>;
  constructor(private readonly optionsFor: (taskId: string) => TranslatorOptions = () => ({}), capacity = 64) {
    this.tasks = new BoundedMap(capacity);
  }
  task(taskId: string): RooTaskTranslator {
    let t = this.tasks.get(taskId);
    if (!t) { t = new RooTaskTranslator(this.optionsFor(taskId)); this.tasks.set(taskId, t); }
    return t;
  }
  peek(taskId: string): RooTaskTranslator | undefined { return this.tasks.peek(taskId); }
  get size(): number { return this.tasks.size; }
}

/** Translates a whole recorded message list (a task folder's `ui_messages.json`). */
export function translateMessages(messages: readonly RooMessage[], options?: TranslatorOptions): TraceEvent[] {
  const t = new RooTaskTranslator(options);
  const out: TraceEvent[] = [];
  for (const m of messages) for (const e of t.message("created", m)) out.push(e);
  return out;
}
