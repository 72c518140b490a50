/**
 * The hook guarding a run on its own (`claude -p`, `copilot -p`, `codex exec`, no VS Code and no
 * `watch`): each hook call is a new process, so a session's state is kept in a small file in a
 * private folder with the engine session itself as data (engineSnapshot.ts), read back at each
 * call, which gives the same counts and rungs as one long-lived session would. Beside it, a file
 * the calls only append to holds the session's compact event log; its newest part (the last
 * MAX_LOG_EVENTS events, long texts cut) rebuilds the engine session by replaying it when the
 * snapshot does not fit (another engine build, other settings). Replaying it at every call, as
 * the hook did, was most of a headless call's time. Parallel calls of one
 * session (Claude runs independent tools at once) take turns on a lock file.
 */
import * as fs from "node:fs";
import { writeFileAtomic } from "../atomicFile";
import type { EngineConfig } from "../../engine/config";
import type { TraceEvent } from "../../engine/events";
import { isRecord } from "../../engine/json";
import { LoopSession } from "../../engine/session";
import { ensurePrivateDir } from "../cline/hookProtocol";
import type { AgentCall, Verdict } from "./dialect";
import { restoreSession, snapshotSession, type EngineSnapshot } from "./engineSnapshot";
import { decideAgentCall, newSessionState, type AgentSessionState } from "./guard";
import { sessionsDir, stateFileFor, STATE_VERSION } from "./sessionFiles";

export { sessionsDir, stateFileFor };

/** Events kept per session: enough for every detector's window, small enough to replay in a few ms. */
export const MAX_LOG_EVENTS = 1200;
/** Characters kept of one event's text (a stream chunk, a tool's output). */
const MAX_EVENT_CHARS = 8 * 1024;
/** Characters kept over the whole log. */
const MAX_LOG_CHARS = 768 * 1024;
/** The log file is cut back to its bounded part once it grows past this. */
const MAX_LOG_FILE_BYTES = 4 * MAX_LOG_CHARS;
/** A lock older than this is left over from a hook that was killed. */
const STALE_LOCK_MS = 10_000;

interface StateFile {
  v: number;
  state: AgentSessionState;
  /** The engine session after the last call, for the engine build and settings `key` names. */
  engine?: { key: string; snapshot: EngineSnapshot };
}

function cut(text: string): string {
  if (text.length <= MAX_EVENT_CHARS) return text;
  const half = MAX_EVENT_CHARS / 2;
  return `${text.slice(0, half)}\n…\n${text.slice(-half)}`;
}

/** An event as kept in the log: long texts cut in the middle (the ends tell outcomes apart). */
function compact(e: TraceEvent): TraceEvent {
  switch (e.t) {
    case "reasoning": case "text": return e.delta.length > MAX_EVENT_CHARS ? { ...e, delta: cut(e.delta) } : e;
    case "tool_result": {
      const r = { ...e };
      if (r.output !== undefined) r.output = cut(r.output);
      if (r.error !== undefined) r.error = cut(r.error);
      return r;
    }
    case "user": return e.text.length > MAX_EVENT_CHARS ? { ...e, text: cut(e.text) } : e;
    default: return e;
  }
}

function charsOf(e: TraceEvent): number {
  switch (e.t) {
    case "reasoning": case "text": return e.delta.length;
    case "tool_result": return (e.output?.length ?? 0) + (e.error?.length ?? 0);
    case "user": return e.text.length;
    case "tool_call": return 200;
    default: return 20;
  }
}

/** The log's newest part that fits the bounds. */
export function boundedLog(log: TraceEvent[]): TraceEvent[] {
  let drop = Math.max(0, log.length - MAX_LOG_EVENTS);
  let chars = 0;
  for (let i = log.length - 1; i >= drop; i--) {
    chars += charsOf(log[i]);
    if (chars > MAX_LOG_CHARS) { drop = i + 1; break; }
  }
  return drop > 0 ? log.slice(drop) : log;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Takes the session's lock, waiting for a parallel call at most `waitMs`; false when it cannot. */
function lock(file: string, waitMs: number): boolean {
  const lockFile = `${file}.lock`;
  const until = Date.now() + waitMs;
  for (;;) {
    try { fs.closeSync(fs.openSync(lockFile, "wx", 0o600)); return true; } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") return false;
    }
    try { if (Date.now() - fs.statSync(lockFile).mtimeMs > STALE_LOCK_MS) { fs.rmSync(lockFile, { force: true }); continue; } } catch { continue; }
    if (Date.now() >= until) return false;
    sleep(5);
  }
}

/** The session's saved state; undefined for none (or one of another session, or of an older format). */
function load(file: string, call: AgentCall): StateFile | undefined {
  let doc: unknown;
  try { doc = JSON.parse(fs.readFileSync(file, "utf8")); } catch { doc = undefined; }
  if (isRecord(doc) && doc.v === STATE_VERSION && isRecord(doc.state) && doc.state.sessionId === call.sessionId) return doc as unknown as StateFile;
  return undefined;
}

/**
 * The event log beside the state file, one event a line, only appended to: it is read only when
 * the engine session must be rebuilt, so a call does not read and rewrite it.
 */
export function logFileFor(stateFile: string): string {
  return stateFile.replace(/\.json$/, ".log.jsonl");
}

/** The log's bounded newest part (a line cut short by a killed hook is skipped). */
function readLog(file: string): TraceEvent[] {
  let text: string;
  try { text = fs.readFileSync(file, "utf8"); } catch { return []; }
  const log: TraceEvent[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try { const e: unknown = JSON.parse(line); if (isRecord(e) && typeof e.t === "string") log.push(e as unknown as TraceEvent); } catch { /* cut short */ }
  }
  return boundedLog(log);
}

/** Adds this call's events to the log (a new session starts it afresh); cuts it back to its bounds when it grew too long. */
function appendLog(file: string, events: TraceEvent[], fresh: boolean): void {
  const text = events.map((e) => `${JSON.stringify(e)}\n`).join("");
  if (fresh) { writeFileAtomic(file, text, 0o600); return; }
  if (text === "") return;
  const fd = fs.openSync(file, "a", 0o600);
  let size: number;
  try { fs.writeSync(fd, text); size = fs.fstatSync(fd).size; } finally { fs.closeSync(fd); }
  if (size > MAX_LOG_FILE_BYTES) writeFileAtomic(file, readLog(file).map((e) => `${JSON.stringify(e)}\n`).join(""), 0o600);
}

/**
 * The session's state written over the old one in place. Only a call holding the session's lock
 * reads or writes it, so no reader meets half a file; replacing it by a rename (as writeFileAtomic
 * does) makes ext4 flush the new data first, which cost a loaded machine about 10 ms a call. A
 * hook killed mid-write leaves a file that does not parse: the session then starts afresh, as a
 * new one (the hook fails open).
 */
function overwriteState(file: string, text: string): void {
  const data = Buffer.from(text);
  let fd: number;
  try { fd = fs.openSync(file, "r+"); } catch { writeFileAtomic(file, data, 0o600); return; }
  try {
    fs.writeSync(fd, data, 0, data.length, 0);
    fs.ftruncateSync(fd, data.length);
  } finally {
    fs.closeSync(fd);
  }
}

export interface HeadlessOptions {
  /** The channel folder (private, owner-checked); session files go in a folder inside it. */
  channel: string;
  config: EngineConfig;
  /** How long to wait for a parallel call of the same session. */
  lockWaitMs?: number;
  /**
   * The engine build deciding (the hook: its engine bundle's size, time and Node's version): a
   * snapshot is read back only by the build that wrote it. Unset: this process's own code.
   */
  engineBuild?: string;
  now?: number;
}

/**
 * Decides one hook call on its own, from the session's saved state. Throws on a folder it cannot
 * trust or use; the hook then lets the call through.
 */
export function decideHeadless(call: AgentCall, o: HeadlessOptions): Verdict {
  ensurePrivateDir(o.channel);
  const dir = sessionsDir(o.channel);
  ensurePrivateDir(dir);
  const file = stateFileFor(dir, call);
  if (!lock(file, o.lockWaitMs ?? 2_000)) return { action: "allow" };
  try {
    const saved = load(file, call);
    const state = saved?.state ?? newSessionState(call.agent, call.sessionId);
    const logFile = logFileFor(file);
    const key = `${o.engineBuild ?? `process ${process.pid}`}\n${JSON.stringify(o.config)}`;
    let session = saved?.engine?.key === key ? restoreSession(saved.engine.snapshot, o.config) : undefined;
    if (!session) {
      session = new LoopSession(o.config);
      if (saved) for (const e of readLog(logFile)) session.push(e);
    }
    const engine = session;
    const added: TraceEvent[] = [];
    const verdict = decideAgentCall(call, state, (e) => {
      const kept = compact(e);
      added.push(kept);
      return engine.push(kept);
    }, o.now);
    appendLog(logFile, added, !saved);
    const snapshot = snapshotSession(engine);
    overwriteState(file, JSON.stringify({ v: STATE_VERSION, state, engine: snapshot && { key, snapshot } } satisfies StateFile));
    return verdict;
  } finally {
    // unlinkSync, not rmSync: rmSync loads Node's rimraf module first, a fraction of a millisecond of every call.
    try { fs.unlinkSync(`${file}.lock`); } catch { /* gone already */ }
  }
}
