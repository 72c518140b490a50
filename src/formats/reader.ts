/**
 * Session readers turn a recorded session (trace file, host task folder, another agent's export)
 * into trace events. Each format is one reader; `index.ts` lists them for auto-detection.
 */
import type { TraceEvent } from "../engine/events";
import { bounded } from "../engine/printable";

export interface RecordedSession {
  /** The file or folder the session came from (as given, for output). */
  file: string;
  /** Reader that understood it ("trace", "roo-task", "cline-classic", ...). */
  format: string;
  events: TraceEvent[];
  /** Lines or messages skipped in lenient mode. */
  skipped: number;
  /**
   * Records read but deliberately not turned into events, counted by reason ("unknown record type
   * \"x\"", "injected context, not a user message", ...): what `replay --explain` shows.
   */
  ignored?: Record<string, number>;
}

/** A session whose events were handed over one by one instead of kept. */
export type StreamedSession = Omit<RecordedSession, "events">;

export interface ReadOptions {
  /** Skip bad lines/messages (counting them) instead of failing. */
  lenient: boolean;
}

export interface SessionReader {
  format: string;
  /** What it reads, for help texts and errors. */
  description: string;
  /**
   * Whether this reader claims the path. `head` is the first 4 KB of a file (undefined for a folder).
   * Must be cheap: it is asked for every path a directory walk meets.
   */
  detect(path: string, isDirectory: boolean, head: string | undefined): boolean;
  /** Reads one path; a folder of many sessions may yield several. Throws SessionFormatError. */
  read(path: string, options: ReadOptions): RecordedSession[];
  /**
   * Formats read line by line can also hand each event over as it is read, holding none of them:
   * one file, one session, in memory that does not grow with its size; undefined when the file
   * holds no session (nothing was handed over). Throws SessionFormatError.
   */
  stream?(path: string, options: ReadOptions, onEvent: (e: TraceEvent) => void): StreamedSession | undefined;
}

/** A bad input, located: "file:line: message" (line counted from 1), or "file: message". */
/** The longest error detail shown (what a parser says, with any input it quotes). */
const MAX_DETAIL_CHARS = 600;

export class SessionFormatError extends Error {
  constructor(readonly file: string, readonly detail: string, readonly line?: number, readonly format?: string) {
    // One line, always: a parser's message may quote the bad input, newlines and all.
    // Bounded too: a message that quotes 10 MB of input must not become a 10 MB line.
    super(`${file}${line !== undefined ? ":" + line : ""}: ${format ? `(${format}) ` : ""}${oneLine(bounded(detail, MAX_DETAIL_CHARS))}`);
  }
}

/** Control characters (newlines in quoted input) written visibly, so an error stays on one line. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n|\r|\n/g, "\\n").replace(/[\u0000-\u0008\u000b-\u001f]/g, " ");
}

/** A byte-order mark some editors write at the start of a file: not part of the JSON. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
