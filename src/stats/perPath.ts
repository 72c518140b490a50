/**
 * `stats` one found path at a time: read it, figure each session, replay it under each swept value,
 * and keep only the figures (never the events), so the same work runs in a worker thread or inline
 * and a folder of any size is held one session at a time, a streamed session not even that.
 */
import type { EngineConfig } from "../engine/config";
import type { TraceEvent } from "../engine/events";
import { LoopSession, type Intervention } from "../engine/session";
import { asFormatError, readFound, SESSION_READERS } from "../formats";
import type { SessionReader, StreamedSession } from "../formats/reader";
import { CallFigureCounter, readLabelFor, sessionReport, verdictOf, type SessionStatsReport } from "./sessionStats";
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

/**
 * One session's figures gathered as its events arrive: the replay, the call figures and each swept
 * replay run side by side on every event, so a streamed session is figured in one pass, unkept.
 */
class SessionFigureCounter {
  private readonly replay: LoopSession;
  private readonly fired: Intervention[] = [];
  private readonly calls: CallFigureCounter;
  private readonly sweeps: Array<{ session: LoopSession; fired: Intervention[] }> | undefined;

  constructor(ctx: StatsContext) {
    this.replay = new LoopSession(ctx.config);
    this.calls = new CallFigureCounter(ctx.config);
    this.sweeps = ctx.sweepConfigs?.map((config) => ({ session: new LoopSession(config), fired: [] }));
  }

  add(e: TraceEvent): void {
    for (const iv of this.replay.push(e)) this.fired.push(iv);
    this.calls.add(e);
    if (this.sweeps) for (const s of this.sweeps) for (const iv of s.session.push(e)) s.fired.push(iv);
  }

  finish(s: StreamedSession): SessionFigures {
    const notes: string[] = [];
    const label = readLabelFor(s.file, (line) => notes.push(line));
    if (s.skipped) notes.push(`${s.file}: skipped ${s.skipped} bad line(s)`);
    const report = sessionReport(s, this.fired, this.calls.figures(), label);
    const sweep = this.sweeps?.map(({ fired }) => ({ verdict: verdictOf(label, fired), interventions: fired.length }));
    return { report, ...(sweep ? { sweep } : {}), notes };
  }
}

/** Reads one found path (streamed where its format allows) and figures its sessions. */
export function figuresOfPath(found: { path: string; reader: SessionReader; named: boolean }, ctx: StatsContext): PathFigures {
  const sessions: SessionFigures[] = [];
  try {
    readFound(found, { lenient: ctx.lenient }, () => {
      const counter = new SessionFigureCounter(ctx);
      return { event: (e) => counter.add(e), end: (s) => sessions.push(counter.finish(s)) };
    });
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
