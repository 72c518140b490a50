/** Reader for trace format v1 files (`*.trace.jsonl`, one event a line). */
import * as fs from "node:fs";
import { toTraceEvent, TraceEventError, type TraceEvent } from "../engine/events";
import { SessionFormatError, type RecordedSession, type SessionReader } from "./reader";

/** Parses trace JSONL text; bad lines throw (file:line) unless lenient, where they are counted. */
export function parseTrace(text: string, file: string, lenient: boolean): { events: TraceEvent[]; skipped: number } {
  const events: TraceEvent[] = [];
  let skipped = 0;
  const lines = text.split("\n");
  let last = lines.length - 1;
  while (last >= 0 && lines[last].trim() === "") last--;
  for (let i = 0; i <= last; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      // A last line cut off mid-write (a trace still being recorded) is only counted, as in every JSONL reader.
      if (lenient || (i === last && !text.endsWith("\n"))) { skipped++; continue; }
      throw new SessionFormatError(file, `not valid JSON (${(err as Error).message})`, i + 1);
    }
    try {
      events.push(toTraceEvent(value));
    } catch (err) {
      if (lenient) { skipped++; continue; }
      const why = err instanceof TraceEventError ? err.message : `not valid JSON (${(err as Error).message})`;
      throw new SessionFormatError(file, why, i + 1);
    }
  }
  return { events, skipped };
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
    let text: string;
    try { text = fs.readFileSync(path, "utf8"); } catch (err) { throw new SessionFormatError(path, (err as Error).message); }
    const { events, skipped } = parseTrace(text, path, options.lenient);
    return [{ file: path, format: "trace", events, skipped }];
  },
};
