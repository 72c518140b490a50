/**
 * Small pieces shared by the readers of other agents' session files (pi, opencode, Claude Code,
 * Gemini CLI): reading, JSON/JSONL parsing with located errors, timestamps, content text, and an
 * event builder that keeps one request's events in trace order.
 */
import * as fs from "node:fs";
import type { RequestEvent, ToolCallEvent, ToolResultEvent, TraceEvent, Usage } from "../engine/events";
import { SessionFormatError, withoutBom } from "./reader";
import { forEachLineOfFile } from "./lines";
export { isRecord, sumNumbers, toMillis } from "../engine/json";
export { contentText, toInput, toText } from "../hosts/transcriptValues";
import { isRecord } from "../engine/json";

/**
 * Largest file read whole. Formats that are one JSON document cannot be streamed, and parsing one
 * takes several times its size in memory: past this, a clear error instead of exhausting the machine.
 */
export const MAX_WHOLE_FILE_BYTES = 256 * 1024 * 1024;

export function readTextFile(file: string, format: string): string {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (err) {
    throw new SessionFormatError(file, (err as Error).message, undefined, format);
  }
  if (size > MAX_WHOLE_FILE_BYTES) {
    throw new SessionFormatError(file, `${Math.round(size / 2 ** 20)} MB is more than the ${MAX_WHOLE_FILE_BYTES / 2 ** 20} MB read whole; this format is one JSON document and cannot be streamed (JSONL traces, Claude Code and pi sessions can)`, undefined, format);
  }
  try {
    return withoutBom(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new SessionFormatError(file, (err as Error).message, undefined, format);
  }
}

/** 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * The line of a value inside a whole-file JSON document, found by its string id (exports give
 * messages and parts unique ids): errors can then name a line as they do for JSONL.
 */
export function lineOfId(text: string, value: unknown): number | undefined {
  if (!isRecord(value) || typeof value.id !== "string" || value.id === "") return undefined;
  const at = text.indexOf(JSON.stringify(value.id));
  return at < 0 ? undefined : lineAt(text, at);
}

/** Parses a whole-file JSON document; a syntax error names the line where the parser stopped. */
export function parseJsonDocument(text: string, file: string, format: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const at = /position (\d+)/.exec(message);
    const line = at ? lineAt(text, Number(at[1])) : undefined;
    throw new SessionFormatError(file, `not valid JSON (${message})`, line, format);
  }
}

export interface JsonLine {
  value: unknown;
  /** 1-based line number in the file. */
  line: number;
}

/**
 * Parses JSONL; a bad line throws (file:line) unless lenient, where it is counted.
 * A last line cut off mid-write (a session still being recorded) is always only counted.
 */
export function parseJsonLines(text: string, file: string, format: string, lenient: boolean): { lines: JsonLine[]; skipped: number } {
  const lines: JsonLine[] = [];
  let skipped = 0;
  const raw = text.split("\n");
  let last = raw.length - 1;
  while (last >= 0 && raw[last].trim() === "") last--;
  for (let i = 0; i <= last; i++) {
    const line = raw[i].trim();
    if (line === "") continue;
    try {
      lines.push({ value: JSON.parse(line), line: i + 1 });
    } catch (err) {
      if (lenient || (i === last && !text.endsWith("\n"))) { skipped++; continue; }
      throw new SessionFormatError(file, `not valid JSON (${(err as Error).message})`, i + 1, format);
    }
  }
  return { lines, skipped };
}

/**
 * A JSONL input read one parsed line at a time: a file streamed, or a text already in memory.
 * Returns how many lines were skipped as bad JSON; calls onLine for the others in order.
 */
export type JsonLineSource = (onLine: (value: unknown, line: number) => void) => number;

/**
 * The rules of parseJsonLines applied as lines arrive: a bad line is an error only once a later
 * non-blank line shows it was not the file's last, cut off mid-write; lenient, it is counted.
 */
class JsonLineStepper {
  skipped = 0;
  private pending: { line: number; message: string } | undefined;
  constructor(private readonly file: string, private readonly format: string, private readonly lenient: boolean) {}

  step(raw: string, lineNo: number, onLine: (value: unknown, line: number) => void): void {
    const line = raw.trim();
    if (line === "") return;
    this.throwPending();
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      if (this.lenient) this.skipped++; else this.pending = { line: lineNo, message: (err as Error).message };
      return;
    }
    onLine(value, lineNo);
  }

  /** At the end: a bad last line is a cut write when the input did not end with a newline. */
  end(endsWithNewline: boolean): number {
    if (this.pending && !endsWithNewline) { this.pending = undefined; this.skipped++; }
    this.throwPending();
    return this.skipped;
  }

  private throwPending(): void {
    if (this.pending) throw new SessionFormatError(this.file, `not valid JSON (${this.pending.message})`, this.pending.line, this.format);
  }
}

/** A JSONL text in memory as a line source: every line parsed (and any error thrown) before the first is handed over. */
export function jsonLinesOfText(text: string, file: string, format: string, lenient: boolean): JsonLineSource {
  return (onLine) => {
    const { lines, skipped } = parseJsonLines(text, file, format, lenient);
    for (const l of lines) onLine(l.value, l.line);
    return skipped;
  };
}

/** A JSONL file streamed as a line source: memory holds one piece of it and one line, whatever its size. */
export function jsonLinesOfFile(file: string, format: string, lenient: boolean): JsonLineSource {
  return (onLine) => {
    const stepper = new JsonLineStepper(file, format, lenient);
    let endsWithNewline = true;
    try {
      forEachLineOfFile(file, (line, lineNo, terminated) => {
        if (!terminated) endsWithNewline = false;
        stepper.step(line, lineNo, onLine); // trim() in step drops a byte-order mark too
      });
    } catch (err) {
      if (typeof (err as NodeJS.ErrnoException).code === "string") throw new SessionFormatError(file, (err as Error).message, undefined, format);
      throw err;
    }
    return stepper.end(endsWithNewline);
  };
}

/** The first non-empty line of a file head, trimmed. */
export function firstLine(head: string | undefined): string {
  if (!head) return "";
  for (const l of head.split("\n")) if (l.trim() !== "") return l.trim();
  return "";
}

/**
 * Builds a trace in the order the live hosts produce it: request, stream chunks, tool calls,
 * end, then the results of that request's calls. A request is opened implicitly when content
 * arrives without one.
 */
export class TraceBuilder {
  readonly events: TraceEvent[] = [];
  private open = false;
  /**
   * With a sink, events are handed out instead of kept, each request's once it has ended: until
   * then a later line may still set its usage. Memory holds one response, not the session.
   */
  constructor(private readonly sink?: (e: TraceEvent) => void) {}
  private heldResults: ToolResultEvent[] = [];
  /** Ids whose result is out: formats that record a result twice (Gemini CLI) count it once. */
  private readonly resulted = new Set<string>();

  get inRequest(): boolean { return this.open; }

  user(text: string, ts?: number): void {
    this.endRequest();
    this.flushResults();
    this.events.push(withTs({ t: "user", text }, ts));
    this.settle();
  }

  /** Opens a request; returns its event so that usage known only later can still be set. */
  request(ts?: number, model?: string, usage?: Usage): RequestEvent {
    this.endRequest();
    this.flushResults();
    const e: RequestEvent = withTs({ t: "request" }, ts);
    if (model) e.model = model;
    if (usage && hasUsage(usage)) e.usage = usage;
    this.events.push(e);
    this.open = true;
    return e;
  }

  reasoning(delta: string, ts?: number): void {
    if (delta === "") return;
    if (!this.open) this.request(ts);
    this.events.push(withTs({ t: "reasoning", delta }, ts));
  }

  text(delta: string, ts?: number): void {
    if (delta === "") return;
    if (!this.open) this.request(ts);
    this.events.push(withTs({ t: "text", delta }, ts));
  }

  toolCall(id: string, name: string, input: Record<string, unknown>, ts?: number): void {
    if (!this.open) this.request(ts);
    const e: ToolCallEvent = { t: "tool_call", id, name, input };
    this.events.push(withTs(e, ts));
  }

  hasResult(id: string): boolean { return this.resulted.has(id); }

  /**
   * A result known while the request is still open is held until its end. A second result for
   * the same call id is dropped (returns false): one call, one outcome.
   */
  toolResult(id: string, ok: boolean, text: string, ts?: number): boolean {
    if (this.resulted.has(id)) return false;
    this.resulted.add(id);
    const e: ToolResultEvent = ok ? { t: "tool_result", id, ok, output: text } : { t: "tool_result", id, ok, error: text };
    const timed = withTs(e, ts);
    if (this.open) this.heldResults.push(timed); else { this.events.push(timed); this.settle(); }
    return true;
  }

  endRequest(ts?: number, usage?: Usage): void {
    if (!this.open) return;
    const e: TraceEvent = { t: "end" };
    if (usage && hasUsage(usage)) e.usage = usage;
    this.events.push(withTs(e, ts));
    this.open = false;
    this.flushResults();
    this.settle();
  }

  private flushResults(): void {
    if (this.open) return;
    for (const r of this.heldResults) this.events.push(r);
    this.heldResults = [];
  }

  /** The events (none left when they went to a sink). */
  finish(): TraceEvent[] {
    this.endRequest();
    this.flushResults();
    this.settle();
    return this.events;
  }

  /** Outside a request nothing kept can change any more: a sink gets it now. */
  private settle(): void {
    if (!this.sink || this.open) return;
    for (const e of this.events) this.sink(e);
    this.events.length = 0;
  }
}

function hasUsage(u: Usage): boolean {
  return u.tokensIn !== undefined || u.tokensOut !== undefined || u.cost !== undefined;
}

function withTs<E extends TraceEvent>(e: E, ts: number | undefined): E {
  return ts === undefined ? e : { ...e, ts };
}

/** Counts records set aside by reason, for `RecordedSession.ignored`. */
export class IgnoredTally {
  private readonly counts = new Map<string, number>();

  add(reason: string, n = 1): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + n);
  }

  /** Undefined when nothing was set aside, so sessions without any stay as they were. */
  result(): Record<string, number> | undefined {
    return this.counts.size === 0 ? undefined : Object.fromEntries(this.counts);
  }
}
