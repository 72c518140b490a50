/**
 * What the agents that keep their session as a JSON-lines file share (Codex's rollout files,
 * Copilot CLI's events.jsonl): a translator fed one line at a time, as the file grows, that hands
 * back the trace events the line completes. The readers in src/formats wrap one over a whole file;
 * a host tails the live file with another. State stays small: what an unanswered call needs.
 */
import type { RequestEvent, TraceEvent, Usage } from "../engine/events";

/** What one line came to: its events, or why it gave none (set aside, or not understood). */
export interface LineOutcome {
  events: TraceEvent[];
  /** A well-formed record deliberately not replayed, by reason ("session metadata", ...). */
  ignored?: string;
  /** A record that is not what the format promises: the caller reports it with its file and line. */
  error?: string;
}

export interface LineTranslator {
  /** One line of the file, already parsed as JSON. */
  feed(value: unknown): LineOutcome;
  /** The end of what there is to read: closes a request still open. */
  finish(): TraceEvent[];
}

/** Parses one line of text and feeds it; a line that is not JSON is an error outcome, never a throw. */
export function feedLineText(translator: LineTranslator, line: string): LineOutcome {
  const text = line.trim();
  if (text === "") return { events: [] };
  let value: unknown;
  try { value = JSON.parse(text); } catch (err) { return { events: [], error: `not valid JSON (${(err as Error).message})` }; }
  return translator.feed(value);
}

function timed<E extends TraceEvent>(e: E, ts: number | undefined): E {
  return ts === undefined ? e : { ...e, ts };
}

/**
 * The events of one line, in trace order: a request opens before the first thing the model said
 * and ends before anything that follows its response (a result, the user, the turn's end).
 */
export class EventOut {
  private open = false;
  events: TraceEvent[] = [];

  get inRequest(): boolean { return this.open; }

  /** The events gathered since the last take, handed over once. */
  take(): TraceEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  request(ts: number | undefined, model?: string, usage?: Usage): void {
    this.end(ts);
    const e: RequestEvent = timed({ t: "request" }, ts);
    if (model) e.model = model;
    if (usage && (usage.tokensIn !== undefined || usage.tokensOut !== undefined)) e.usage = usage;
    this.events.push(e);
    this.open = true;
  }

  private ensure(ts: number | undefined): void {
    if (!this.open) this.request(ts);
  }

  reasoning(text: string, ts: number | undefined): void {
    if (text === "") return;
    this.ensure(ts);
    this.events.push(timed({ t: "reasoning", delta: text }, ts));
  }

  text(text: string, ts: number | undefined): void {
    if (text === "") return;
    this.ensure(ts);
    this.events.push(timed({ t: "text", delta: text }, ts));
  }

  toolCall(id: string, name: string, input: Record<string, unknown>, ts: number | undefined): void {
    this.ensure(ts);
    this.events.push(timed({ t: "tool_call", id, name, input }, ts));
  }

  toolResult(id: string, ok: boolean, text: string, ts: number | undefined): void {
    this.end(ts);
    this.events.push(timed(ok ? { t: "tool_result", id, ok, output: text } : { t: "tool_result", id, ok, error: text }, ts));
  }

  user(text: string, ts: number | undefined): void {
    this.end(ts);
    this.events.push(timed({ t: "user", text }, ts));
  }

  end(ts: number | undefined, usage?: Usage): void {
    if (!this.open) return;
    const e: TraceEvent = timed({ t: "end" }, ts);
    if (usage && (usage.tokensIn !== undefined || usage.tokensOut !== undefined)) e.usage = usage;
    this.events.push(e);
    this.open = false;
  }
}
