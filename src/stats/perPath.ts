/**
 * `stats` one found path at a time: read it, figure each session, replay it under each swept value,
 * and keep only the figures (never the events), so the same work runs in a worker thread or inline
 * and a folder of any size is held one session at a time.
 */
import type { EngineConfig } from "../engine/config";
import { replayEvents } from "../engine/replay";
import { asFormatError, readDetected, SESSION_READERS } from "../formats";
import type { RecordedSession, SessionReader } from "../formats/reader";
import { readLabelFor, sessionStats, verdictOf, type SessionStatsReport } from "./sessionStats";
import type { SessionSweep } from "./sweep";

export interface StatsContext {
  config: EngineConfig;
  lenient: boolean;
  /** One config per swept value, in the order of the values. */
  sweepConfigs?: EngineConfig[];
}

export interface SessionFigures {
  report: SessionStatsReport;
  /** Per swept value: the verdict and how many interventions. */
  sweep?: SessionSweep;
  /** Lines for stderr (label problems, skipped lines), in order. */
  notes: string[];
}

/** What one path gave: its sessions' figures, or the one-line error that it could not be read. */
export type PathFigures = { sessions: SessionFigures[] } | { error: string };

export function figuresOfSession(s: RecordedSession, ctx: StatsContext): SessionFigures {
  const notes: string[] = [];
  const label = readLabelFor(s.file, (line) => notes.push(line));
  if (s.skipped) notes.push(`${s.file}: skipped ${s.skipped} bad line(s)`);
  const report = sessionStats(s, ctx.config, label);
  const sweep = ctx.sweepConfigs?.map((config) => {
    const fired = replayEvents(s.events, config).interventions;
    return { verdict: verdictOf(label, fired), interventions: fired.length };
  });
  return { report, ...(sweep ? { sweep } : {}), notes };
}

/** Reads one found path whole (stats needs every event twice and more) and figures its sessions. */
export function figuresOfPath(found: { path: string; reader: SessionReader; named: boolean }, ctx: StatsContext): PathFigures {
  const sessions: SessionFigures[] = [];
  try {
    for (const s of readDetected(found.reader, found.path, found.named, { lenient: ctx.lenient })) sessions.push(figuresOfSession(s, ctx));
  } catch (err) {
    // As collectSessions: whatever stops one path is that path's located error, not the run's.
    return { error: asFormatError(found.path, err).message };
  }
  return { sessions };
}

/** A reader by its format name (a worker thread gets names, not objects). */
export function readerNamed(format: string): SessionReader | undefined {
  return SESSION_READERS.find((r) => r.format === format);
}
