/**
 * A session file read through a host's line translator (src/hosts/*): the same translation the
 * live host applies to the growing file, applied to the whole file here, with the readers' rules
 * for bad lines (an error naming file and line; lenient, counted and skipped, the rest kept).
 */
import type { TraceEvent } from "../engine/events";
import type { LineTranslator } from "../hosts/lineTranslation";
import { IgnoredTally, jsonLinesOfFile, jsonLinesOfText, readTextFile, type JsonLineSource } from "./exportHelpers";
import { SessionFormatError, type RecordedSession, type ReadOptions, type SessionReader, type StreamedSession } from "./reader";

function readTranslated(source: JsonLineSource, translator: LineTranslator, file: string, format: string, lenient: boolean, sink: (e: TraceEvent) => void): StreamedSession {
  let skipped = 0;
  const ignored = new IgnoredTally();
  const badJson = source((value, line) => {
    const outcome = translator.feed(value);
    if (outcome.error !== undefined) {
      if (!lenient) throw new SessionFormatError(file, outcome.error, line, format);
      skipped++;
    }
    if (outcome.ignored !== undefined) ignored.add(outcome.ignored);
    for (const e of outcome.events) sink(e);
  });
  for (const e of translator.finish()) sink(e);
  return { file, format, skipped: skipped + badJson, ignored: ignored.result() };
}

/** The session in a JSONL text, read through a fresh translator. */
export function parseTranslated(text: string, file: string, format: string, lenient: boolean, translator: LineTranslator): RecordedSession {
  const events: TraceEvent[] = [];
  const s = readTranslated(jsonLinesOfText(text, file, format, lenient), translator, file, format, lenient, (e) => events.push(e));
  return { ...s, events };
}

/** A reader of a JSON-lines format whose lines a host translates: read whole, or streamed. */
export function translatedReader(format: string, description: string, detect: SessionReader["detect"], translator: () => LineTranslator): SessionReader {
  return {
    format,
    description,
    detect,
    read: (path: string, options: ReadOptions) => [parseTranslated(readTextFile(path, format), path, format, options.lenient, translator())],
    stream: (path, options, onEvent) => readTranslated(jsonLinesOfFile(path, format, options.lenient), translator(), path, format, options.lenient, onEvent),
  };
}
