/**
 * The neutral session event stream (trace format v1, see README "Trace format").
 * Every host adapter and every file reader produces these; the detectors see nothing else.
 */

import { capJsonDepth, isRecord, safeJsonStringify } from "./json";
import { quoted } from "./printable";

export interface Usage {
  /** Prompt tokens of the request, as the host reported them. */
  tokensIn?: number;
  /** Completion (including reasoning) tokens of the request. */
  tokensOut?: number;
  /** Cost in the host's currency unit (USD for Roo and Cline). */
  cost?: number;
}

interface Timed {
  /** Milliseconds; absolute or from the start, only differences matter. */
  ts?: number;
}

export interface UserEvent extends Timed {
  t: "user";
  text: string;
  /**
   * Read after events it preceded (a session file written behind the hooks that fed the calls): what
   * it asks is read, but it starts no new interaction, so the evidence gathered is kept.
   */
  late?: boolean;
}
export interface RequestEvent extends Timed { t: "request"; model?: string; usage?: Usage }
export interface ReasoningEvent extends Timed { t: "reasoning"; delta: string }
export interface TextEvent extends Timed { t: "text"; delta: string }
export interface ToolCallEvent extends Timed {
  t: "tool_call";
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export interface ToolResultEvent extends Timed {
  t: "tool_result";
  id: string;
  ok: boolean;
  output?: string;
  error?: string;
}
export interface EndEvent extends Timed { t: "end"; usage?: Usage }

export type TraceEvent =
  | UserEvent
  | RequestEvent
  | ReasoningEvent
  | TextEvent
  | ToolCallEvent
  | ToolResultEvent
  | EndEvent;

export type EventKind = TraceEvent["t"];
export const EVENT_KINDS: readonly EventKind[] = ["user", "request", "reasoning", "text", "tool_call", "tool_result", "end"];

/** A stream chunk of either channel. */
export type StreamEvent = ReasoningEvent | TextEvent;

export class TraceEventError extends Error {}

/**
 * The checks take the field's value, read by the caller by name: on the per-event path a load by a
 * variable key costs more than the check.
 */
function optionalNumber(v: unknown, key: string): number | undefined {
  if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v))) throw new TraceEventError(`"${key}" must be a finite number`);
  return v as number | undefined;
}

function requireString(v: unknown, t: unknown, key: string): string {
  if (typeof v !== "string") throw new TraceEventError(`${quoted(t)} event needs a string "${key}"`);
  return v;
}

function usageOf(v: unknown): Usage | undefined {
  if (v === undefined) return undefined;
  if (!isRecord(v)) throw new TraceEventError(`"usage" must be an object`);
  return { tokensIn: optionalNumber(v.tokensIn, "tokensIn"), tokensOut: optionalNumber(v.tokensOut, "tokensOut"), cost: optionalNumber(v.cost, "cost") };
}

const CHUNK_FIELDS = ["t", "delta"];
const TIMED_CHUNK_FIELDS = ["t", "delta", "ts"];

/** Whether the object's own enumerable keys are exactly these, in this order. */
function hasExactly(o: Record<string, unknown>, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) if (k !== keys[i++]) return false;
  return i === keys.length;
}

/**
 * Checks a parsed JSON value against the event schema and returns a clean copy (or the value itself
 * when it holds exactly an event's fields in their order: the same event, field for field).
 * Throws TraceEventError with a message that names the problem (the caller adds file:line).
 */
export function toTraceEvent(value: unknown): TraceEvent {
  if (!isRecord(value)) throw new TraceEventError("an event must be a JSON object");
  const t = value.t;
  if (typeof t !== "string") throw new TraceEventError(`missing event type field "t"`);
  const ts = optionalNumber(value.ts, "ts");
  // Built field by field, ts last: a spread copy per event was a sixth of a whole replay's time.
  let e: TraceEvent;
  switch (t) {
    case "user":
      e = value.late === true ? { t, text: requireString(value.text, t, "text"), late: true } : { t, text: requireString(value.text, t, "text") };
      break;
    case "request": {
      if (value.model !== undefined && typeof value.model !== "string") throw new TraceEventError(`"model" must be a string`);
      const r: RequestEvent = { t };
      if (value.model !== undefined) r.model = value.model as string;
      const usage = usageOf(value.usage);
      if (usage) r.usage = usage;
      e = r;
      break;
    }
    case "reasoning":
    case "text": {
      const delta = requireString(value.delta, t, "delta");
      // Nearly every event is a chunk that holds just these fields, in this order: it is taken as
      // it is instead of copied (no object per chunk).
      if (hasExactly(value, ts === undefined ? CHUNK_FIELDS : TIMED_CHUNK_FIELDS)) return value as unknown as TraceEvent;
      e = { t, delta };
      break;
    }
    case "tool_call": {
      const id = requireString(value.id, t, "id");
      const name = requireString(value.name, t, "name");
      const input = value.input === undefined ? {} : value.input;
      if (!isRecord(input)) throw new TraceEventError(`"tool_call" input must be an object`);
      e = { t, id, name, input: capJsonDepth(input) };
      break;
    }
    case "tool_result": {
      const id = requireString(value.id, t, "id");
      if (typeof value.ok !== "boolean") throw new TraceEventError(`"tool_result" needs a boolean "ok"`);
      const r: ToolResultEvent = { t, id, ok: value.ok };
      if (value.output !== undefined) r.output = typeof value.output === "string" ? value.output : safeJsonStringify(value.output);
      if (value.error !== undefined) r.error = typeof value.error === "string" ? value.error : safeJsonStringify(value.error);
      e = r;
      break;
    }
    case "end": {
      const r: EndEvent = { t };
      const usage = usageOf(value.usage);
      if (usage) r.usage = usage;
      e = r;
      break;
    }
    default:
      throw new TraceEventError(`unknown event type ${quoted(t)} (expected one of ${EVENT_KINDS.join(", ")})`);
  }
  if (ts !== undefined) e.ts = ts;
  return e;
}

/** The text a tool result carries, whichever field it came in. */
export function resultText(e: ToolResultEvent): string {
  return e.ok ? (e.output ?? e.error ?? "") : (e.error ?? e.output ?? "");
}
