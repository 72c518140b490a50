/** Reader for trace format v1 files (`*.trace.jsonl`, one event a line). */
import { toTraceEvent, TraceEventError, type TraceEvent } from "../engine/events";
import { forEachLineOfFile } from "./lines";
import { SessionFormatError, type RecordedSession, type SessionReader } from "./reader";

/**
 * One trace line at a time: bad lines throw (file:line) unless lenient, where they are counted; a
 * last line cut off mid-write (a trace still being recorded) is only counted, as in every JSONL reader.
 */
class TraceLineParser {
  skipped = 0;
  constructor(private readonly file: string, private readonly lenient: boolean) {}

  parse(raw: string, lineNo: number, terminated: boolean): TraceEvent | undefined {
    let value: unknown;
    // JSON.parse skips JSON's own whitespace around the value, so a good line needs no trimmed copy;
    // only a line it refuses is trimmed (blank, or padded with other whitespace) and judged as it was.
    try {
      value = JSON.parse(raw);
    } catch {
      const line = raw.trim();
      if (line === "") return undefined;
      try {
        value = JSON.parse(line);
      } catch (err) {
        if (this.lenient || !terminated) { this.skipped++; return undefined; }
        throw new SessionFormatError(this.file, `not valid JSON (${(err as Error).message})`, lineNo);
      }
    }
    try {
      return toTraceEvent(value);
    } catch (err) {
      if (this.lenient) { this.skipped++; return undefined; }
      const why = err instanceof TraceEventError ? err.message : `not valid JSON (${(err as Error).message})`;
      throw new SessionFormatError(this.file, why, lineNo);
    }
  }
}

/** Parses trace JSONL text (a whole file or a command's output). */
export function parseTrace(text: string, file: string, lenient: boolean): { events: TraceEvent[]; skipped: number } {
  const parser = new TraceLineParser(file, lenient);
  const events: TraceEvent[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const e = parser.parse(lines[i], i + 1, i < lines.length - 1);
    if (e) events.push(e);
  }
  return { events, skipped: parser.skipped };
}

/** Streams a trace file's events without holding the file or the events: memory does not grow with its size. */
export function streamTrace(file: string, lenient: boolean, onEvent: (e: TraceEvent) => void): { skipped: number } {
  const parser = new TraceLineParser(file, lenient);
  try {
    forEachLineOfFile(file, (line, lineNo, terminated) => {
      const e = parser.parse(line, lineNo, terminated);
      if (e) onEvent(e);
    });
  } catch (err) {
    // The file system's errors are the input's; anything else thrown on the way is not ours to rename.
    if (typeof (err as NodeJS.ErrnoException).code === "string") throw new SessionFormatError(file, (err as Error).message);
    throw err;
  }
  return { skipped: parser.skipped };
}

export const traceReader: SessionReader = {
  format: "trace",
  description: "Loop Sentinel trace v1 (*.trace.jsonl)",
  detect(path, isDirectory, head) {
    if (isDirectory) return false;
    if (/\.trace\.jsonl$/i.test(path)) return true;
    // Any JSONL whose first line is an event with a known "t".
    const first = head?.split("\n", 1)[0]?.trim() ?? "";
    return /^\{.*"t"\s*:\s*"(user|request|reasoning|text|tool_call|tool_result|end)"/.test(first);
  },
  read(path, options): RecordedSession[] {
    const events: TraceEvent[] = [];
    const { skipped } = streamTrace(path, options.lenient, (e) => events.push(e));
    return [{ file: path, format: "trace", events, skipped }];
  },
  stream(path, options, onEvent) {
    const { skipped } = streamTrace(path, options.lenient, onEvent);
    return { file: path, format: "trace", skipped };
  },
};
