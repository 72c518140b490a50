/**
 * Auto-detection over every known session format. A path is offered to each reader in turn;
 * the first that claims it reads it. Folders nobody claims are walked.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { capJsonDepth } from "../engine/json";
import type { ToolCallEvent, TraceEvent } from "../engine/events";
import { SessionFormatError, type ReadOptions, type RecordedSession, type SessionReader, type StreamedSession } from "./reader";
import { traceReader } from "./traceFile";
import { rooTaskReader } from "./rooTask";
import { CLINE_READERS } from "./clineTask";
import { piReader } from "./pi";
import { opencodeReader } from "./opencode";
import { claudeCodeReader } from "./claudeCode";
import { geminiCliReader } from "./geminiCli";
import { codexReader } from "./codex";
import { copilotCliReader } from "./copilotCli";

/** Most specific first: host task folders before generic JSONL. Add a reader here. */
export const SESSION_READERS: SessionReader[] = [
  rooTaskReader,
  ...CLINE_READERS,
  traceReader,
  piReader,
  opencodeReader,
  codexReader,
  copilotCliReader,
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

function withShallowInput(e: ToolCallEvent): ToolCallEvent {
  const input = capJsonDepth(e.input);
  return input === e.input ? e : { ...e, input };
}

/** Total of a session's records set aside. */
export function ignoredCount(s: Pick<RecordedSession, "ignored">): number {
  return Object.values(s.ignored ?? {}).reduce((a, b) => a + b, 0);
}

/**
 * Reads a path with the reader that claimed it. A claim is a guess from a name and a file head: a
 * reader that then fails in an unexpected way, or finds nothing it understands in a file that has
 * records, says so as an error naming the format it guessed, instead of a crash or an empty replay.
 */
export function readDetected(reader: SessionReader, p: string, named: boolean, options: ReadOptions): RecordedSession[] {
  let sessions: RecordedSession[];
  try {
    sessions = reader.read(p, options);
  } catch (err) {
    if (err instanceof SessionFormatError) throw err;
    throw new SessionFormatError(p, `detected as ${reader.description}, but reading it failed (${(err as Error).message}); is it another format?`, undefined, reader.format);
  }
  for (const s of sessions) {
    // Inputs of any depth become shallow here, once for every reader: converting or printing them stays safe.
    s.events = s.events.map((e) => (e.t === "tool_call" ? withShallowInput(e) : e));
    checkReplayable(reader, p, named, s, s.events.length);
  }
  return sessions;
}

/** A file named directly whose records were all set aside was most likely guessed wrong: say so. */
function checkReplayable(reader: SessionReader, p: string, named: boolean, s: StreamedSession, events: number): void {
  if (named && events === 0 && ignoredCount(s) > 0) {
    const why = Object.entries(s.ignored ?? {}).map(([reason, n]) => `${n} × ${reason}`).join("; ");
    throw new SessionFormatError(p, `detected as ${reader.description}, but none of its records is one this reader replays (${why}); is it another format?`, undefined, reader.format);
  }
}

/** As readDetected, the events handed to `onEvent` as they are read (the reader must stream). */
function streamDetected(reader: SessionReader & Required<Pick<SessionReader, "stream">>, p: string, named: boolean, options: ReadOptions, onEvent: (e: TraceEvent) => void): (StreamedSession & { eventCount: number }) | undefined {
  let eventCount = 0;
  let s: StreamedSession | undefined;
  try {
    s = reader.stream(p, options, (e) => { eventCount++; onEvent(e.t === "tool_call" ? withShallowInput(e) : e); });
  } catch (err) {
    if (err instanceof SessionFormatError) throw err;
    if (typeof (err as NodeJS.ErrnoException).code === "string") throw new SessionFormatError(p, (err as Error).message);
    throw err;
  }
  if (!s) return undefined;
  checkReplayable(reader, p, named, s, eventCount);
  return { ...s, eventCount };
}

/** The file-system calls the walk makes, replaceable in tests (errors a root user cannot provoke). */
export interface WalkFs {
  statSync(p: string): fs.Stats;
  readdirSync(p: string): string[];
  realpathSync(p: string): string;
}

const nodeWalkFs: WalkFs = { statSync: (p) => fs.statSync(p), readdirSync: (p) => fs.readdirSync(p), realpathSync: (p) => fs.realpathSync(p) };

/** How many folders deep a walk goes below a path it was given. */
const MAX_WALK_DEPTH = 6;

/** What a walk found: the sessions it could read, and one located error per path it could not. */
export interface SessionsRead {
  sessions: RecordedSession[];
  errors: SessionFormatError[];
}

export function asFormatError(p: string, err: unknown): SessionFormatError {
  if (err instanceof SessionFormatError) return err;
  const e = err as NodeJS.ErrnoException;
  const why = e?.code === "ENOENT" ? "no such file or folder (or a broken link)"
    : e?.code === "EACCES" || e?.code === "EPERM" ? "permission denied"
      : e?.code === "ELOOP" ? "too many levels of symbolic links"
        : (e?.message ?? String(err));
  return new SessionFormatError(p, why);
}

/**
 * Every session under the given paths, in a stable (sorted) order, and an error for each path
 * that could not be read: one bad file or unreadable folder does not hide the good sessions beside
 * it. A file no reader claims is an error when named directly and skipped when met during a folder
 * walk. Links are followed, but each real file or folder is read once (a `self -> .` link is not a loop).
 */
export function collectSessions(paths: string[], options: ReadOptions, walkFs: WalkFs = nodeWalkFs): SessionsRead {
  const sessions: RecordedSession[] = [];
  const errors: SessionFormatError[] = [];
  for (const found of discoverSessions(paths, walkFs)) {
    if ("error" in found) { errors.push(found.error); continue; }
    try { sessions.push(...readDetected(found.reader, found.path, found.named, options)); } catch (err) { errors.push(asFormatError(found.path, err)); }
  }
  return { sessions, errors };
}

/** A path a reader claimed, not yet read; or a path that could not be read, located. */
export type FoundPath = { path: string; reader: SessionReader; named: boolean } | { error: SessionFormatError };

/**
 * The walk of collectSessions without the reading, in the same order: a caller can then read each
 * path its own way (stream it) and hold one session at a time.
 */
export function discoverSessions(paths: string[], walkFs: WalkFs = nodeWalkFs): FoundPath[] {
  const out: FoundPath[] = [];
  const visited = new Set<string>();
  const visit = (p: string, named: boolean, depth: number) => {
    let stat: fs.Stats;
    let real: string;
    try { stat = walkFs.statSync(p); real = walkFs.realpathSync(p); } catch (err) { out.push({ error: asFormatError(p, err) }); return; }
    if (visited.has(real)) return;
    visited.add(real);
    const isDirectory = stat.isDirectory();
    // A FIFO or device would block or never end: only regular files and folders are read.
    if (!isDirectory && !stat.isFile()) {
      if (named) out.push({ error: new SessionFormatError(p, "not a regular file or folder") });
      return;
    }
    try {
      const reader = readerFor(p, isDirectory);
      if (reader) { out.push({ path: p, reader, named }); return; }
      if (isDirectory) {
        if (depth > MAX_WALK_DEPTH) return;
        for (const name of walkFs.readdirSync(p).sort()) {
          if (name.startsWith(".") || name === "node_modules") continue;
          visit(path.join(p, name), false, depth + 1);
        }
        return;
      }
    } catch (err) { out.push({ error: asFormatError(p, err) }); return; }
    if (named) out.push({ error: new SessionFormatError(p, `not a session file this tool can read (known formats: ${SESSION_READERS.map((r) => r.description).join("; ")})`) });
  };
  for (const p of paths) visit(p, true, 0);
  return out;
}

/** What takes one session's events: fed each as it is read, then told what the reader made of the session. */
export interface SessionSink {
  event(e: TraceEvent): void;
  end(s: StreamedSession): void;
}

/**
 * Reads one found path, each of its sessions into a sink of its own from `begin`: streamed when its
 * reader streams (memory flat in its size), else read whole and then fed event by event.
 */
export function readFound(found: { path: string; reader: SessionReader; named: boolean }, options: ReadOptions, begin: () => SessionSink): void {
  const { reader } = found;
  if (reader.stream) {
    const sink = begin();
    const s = streamDetected(reader as SessionReader & Required<Pick<SessionReader, "stream">>, found.path, found.named, options, (e) => sink.event(e));
    if (s) sink.end(s);
    return;
  }
  for (const s of readDetected(reader, found.path, found.named, options)) {
    const sink = begin();
    for (const e of s.events) sink.event(e);
    sink.end(s);
  }
}

/** Every session under the given paths; throws the first error (see collectSessions for all of them). */
export function readSessions(paths: string[], options: ReadOptions): RecordedSession[] {
  const { sessions, errors } = collectSessions(paths, options);
  if (errors.length > 0) throw errors[0];
  return sessions;
}
