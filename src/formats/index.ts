/**
 * Auto-detection over every known session format. A path is offered to each reader in turn;
 * the first that claims it reads it. Folders nobody claims are walked.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { SessionFormatError, type ReadOptions, type RecordedSession, type SessionReader } from "./reader";
import { traceReader } from "./traceFile";
import { rooTaskReader } from "./rooTask";
import { CLINE_READERS } from "./clineTask";
import { piReader } from "./pi";
import { opencodeReader } from "./opencode";
import { claudeCodeReader } from "./claudeCode";
import { geminiCliReader } from "./geminiCli";

/** Most specific first: host task folders before generic JSONL. Add a reader here. */
export const SESSION_READERS: SessionReader[] = [
  rooTaskReader,
  ...CLINE_READERS,
  traceReader,
  piReader,
  opencodeReader,
  claudeCodeReader,
  geminiCliReader,
];

const HEAD_BYTES = 4096;

function headOf(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "r");
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = fs.readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n).toString("utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function readerFor(p: string, isDirectory: boolean): SessionReader | undefined {
  const head = isDirectory ? undefined : headOf(p);
  return SESSION_READERS.find((r) => r.detect(p, isDirectory, head));
}

/** Total of a session's records set aside. */
export function ignoredCount(s: RecordedSession): number {
  return Object.values(s.ignored ?? {}).reduce((a, b) => a + b, 0);
}

/**
 * Reads a path with the reader that claimed it. A claim is a guess from a name and a file head: a
 * reader that then fails in an unexpected way, or finds nothing it understands in a file that has
 * records, says so as an error naming the format it guessed, instead of a crash or an empty replay.
 */
function readDetected(reader: SessionReader, p: string, named: boolean, options: ReadOptions): RecordedSession[] {
  let sessions: RecordedSession[];
  try {
    sessions = reader.read(p, options);
  } catch (err) {
    if (err instanceof SessionFormatError) throw err;
    throw new SessionFormatError(p, `detected as ${reader.description}, but reading it failed (${(err as Error).message}); is it another format?`, undefined, reader.format);
  }
  for (const s of sessions) {
    if (named && s.events.length === 0 && ignoredCount(s) > 0) {
      const why = Object.entries(s.ignored ?? {}).map(([reason, n]) => `${n} × ${reason}`).join("; ");
      throw new SessionFormatError(p, `detected as ${reader.description}, but none of its records is one this reader replays (${why}); is it another format?`, undefined, reader.format);
    }
  }
  return sessions;
}

/**
 * Every session under the given paths, in a stable (sorted) order. A file no reader claims is an
 * error when named directly and skipped when met during a folder walk.
 */
export function readSessions(paths: string[], options: ReadOptions): RecordedSession[] {
  const out: RecordedSession[] = [];
  const visit = (p: string, named: boolean, depth: number) => {
    let stat: fs.Stats;
    try { stat = fs.statSync(p); } catch (err) { throw new SessionFormatError(p, (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or folder" : (err as Error).message); }
    const reader = readerFor(p, stat.isDirectory());
    if (reader) { out.push(...readDetected(reader, p, named, options)); return; }
    if (stat.isDirectory()) {
      if (depth > 6) return;
      for (const name of fs.readdirSync(p).sort()) {
        if (name.startsWith(".") || name === "node_modules") continue;
        visit(path.join(p, name), false, depth + 1);
      }
      return;
    }
    if (named) throw new SessionFormatError(p, `not a session file this tool can read (known formats: ${SESSION_READERS.map((r) => r.description).join("; ")})`);
  };
  for (const p of paths) visit(p, true, 0);
  return out;
}
