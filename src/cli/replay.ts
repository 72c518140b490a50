/** `loop-sentinel replay FILE|DIR... [--json] [--explain] [--config FILE] [--set k=v] [--lenient]` */
import type { Intervention } from "../engine/session";
import { LoopSession } from "../engine/session";
import type { EngineConfig } from "../engine/config";
import { discoverSessions, ignoredCount, readFound, SESSION_READERS } from "../formats";
import { EVENT_KINDS, type TraceEvent } from "../engine/events";
import { SessionFormatError, type StreamedSession } from "../formats/reader";
import { flag, parseArgs, UsageError } from "./args";
import { loadCliConfig } from "./loadConfig";
import { reportReadErrors, type CliIO } from "./io";

export const REPLAY_USAGE = "replay FILE|DIR... [--json] [--explain] [--config FILE] [--set key=value] [--lenient]";

function describeEvent(e: TraceEvent | undefined): string {
  if (!e) return "";
  switch (e.t) {
    case "tool_call": return `tool_call ${e.name}`;
    case "reasoning": case "text": return `${e.t} chunk`;
    default: return e.t;
  }
}

/** An intervention with what the timeline says about the event it came at, taken while that event was at hand. */
interface Fired { iv: Intervention; at: string; elapsed: string }

/**
 * One session through a fresh engine, event by event: it keeps the interventions and counts, never
 * the events, so a streamed file replays in memory that does not grow with its length.
 */
class SessionReplay {
  private readonly session: LoopSession;
  readonly fired: Fired[] = [];
  events = 0;
  /** Events by kind, for --explain only: a lookup by the kind's name is a slow keyed access on every event. */
  readonly byKind: Record<string, number> = {};
  private firstTs: number | undefined;

  constructor(config: EngineConfig, private readonly countKinds: boolean) {
    this.session = new LoopSession(config);
    for (const k of EVENT_KINDS) this.byKind[k] = 0;
  }

  push(e: TraceEvent): void {
    this.events++;
    if (this.countKinds) this.byKind[e.t]++;
    if (this.firstTs === undefined && e.ts !== undefined) this.firstTs = e.ts;
    const fired = this.session.push(e);
    // (nearly every event fires nothing: no iterator over the shared empty list)
    if (fired.length === 0) return;
    for (const iv of fired) {
      // Seconds since the session's first timestamp, when the trace has timestamps.
      const elapsed = this.firstTs === undefined || e.ts === undefined ? "" : `+${((e.ts - this.firstTs) / 1000).toFixed(1)}s`;
      this.fired.push({ iv, at: describeEvent(e), elapsed });
    }
  }

  get faults(): { count: number; first?: string } { return this.session.faults; }
}

/** What the reader made of a file: its format, the events by kind, what it skipped or set aside and why. */
function formatExplanation(s: StreamedSession, r: SessionReplay): string[] {
  const reader = SESSION_READERS.find((x) => x.format === s.format);
  const lines = [`  read as: ${s.format}${reader ? ` (${reader.description})` : ""}`];
  lines.push(`  events: ${Object.entries(r.byKind).map(([k, n]) => `${k} ${n}`).join(", ")}`);
  if (s.skipped) lines.push(`  skipped: ${s.skipped} bad line(s) or record(s) (--lenient)`);
  const ignored = Object.entries(s.ignored ?? {}).sort((a, b) => b[1] - a[1]);
  if (ignored.length === 0) lines.push("  set aside: nothing");
  else {
    lines.push(`  set aside: ${ignoredCount(s)} record(s), not events:`);
    for (const [reason, n] of ignored) lines.push(`    ${String(n).padStart(5)} × ${reason}`);
  }
  return lines;
}

function formatTimeline(s: StreamedSession, r: SessionReplay, explain: boolean): string[] {
  const aside = ignoredCount(s);
  const lines = [`${s.file}  (${s.format}, ${r.events} events${s.skipped ? `, ${s.skipped} skipped` : ""}${aside ? `, ${aside} records set aside` : ""})`];
  if (explain) lines.push(...formatExplanation(s, r));
  if (r.fired.length === 0) { lines.push("  nothing fired"); return lines; }
  const guided = new Set<string>();
  for (const { iv, at, elapsed } of r.fired) {
    lines.push(`  event ${String(iv.event).padStart(5)} ${elapsed.padStart(8)}  ${iv.action.toUpperCase().padEnd(5)}  ${iv.detector.padEnd(14)}  at ${at}`);
    lines.push(`        why: ${iv.summary}`);
    if (iv.evidence.span) lines.push(`        repeated: "${iv.evidence.span}"`);
    if (iv.evidence.cycle) lines.push(`        cycle: ${iv.evidence.cycle.join(" → ")}`);
    // The guidance is long and repeats per rung: print it the first time a pattern fires.
    if (!guided.has(iv.key)) { guided.add(iv.key); lines.push(`        guidance: ${iv.message}`); }
  }
  return lines;
}

export function runReplay(argv: string[], io: CliIO): number {
  const args = parseArgs(argv, ["config", "set"], ["json", "lenient", "explain"]);
  const explain = args.flags.has("explain");
  if (args.positionals.length === 0) throw new UsageError(`replay needs at least one file or folder\nusage: loop-sentinel ${REPLAY_USAGE}`);
  const config = loadCliConfig(flag(args, "config"), args.flags.get("set") ?? [], io.err);
  const lenient = args.flags.has("lenient");
  // Every path is read before anything is printed; the paths that could not be read are named after
  // the results, and the exit code says so: bad input never looks like a complete success. Sessions
  // are replayed as they are read (streamed where the format allows), one at a time.
  const json = args.flags.has("json");
  const out: string[] = [];
  const errors: SessionFormatError[] = [];
  const done: StreamedSession[] = [];
  let fired = 0;
  const finish = (s: StreamedSession, r: SessionReplay) => {
    if (r.faults.count > 0) io.err(`${s.file}: ${r.faults.count} detector failure(s), the first: ${r.faults.first} (a bug: please report it)`);
    fired += r.fired.length ? 1 : 0;
    done.push({ file: s.file, format: s.format, skipped: s.skipped, ignored: s.ignored });
    if (json) {
      out.push(JSON.stringify({
        file: s.file,
        format: s.format,
        events: r.events,
        ...(s.skipped ? { skipped: s.skipped } : {}),
        ...(explain ? { eventsByKind: r.byKind, ignored: s.ignored ?? {} } : {}),
        interventions: r.fired.map(({ iv }) => ({ event: iv.event, detector: iv.detector, action: iv.action, message: iv.message, key: iv.key, evidence: iv.evidence })),
      }));
    } else out.push(...formatTimeline(s, r, explain), "");
    if (lenient && s.skipped) io.err(`${s.file}: skipped ${s.skipped} bad line(s)`);
  };
  for (const found of discoverSessions(args.positionals)) {
    if ("error" in found) { errors.push(found.error); continue; }
    try {
      readFound(found, { lenient }, () => {
        const r = new SessionReplay(config, explain);
        return { event: (e) => r.push(e), end: (s) => finish(s, r) };
      });
    } catch (err) {
      if (!(err instanceof SessionFormatError)) throw err;
      errors.push(err);
    }
  }
  const sessions = done;
  if (!json) {
    const aside = sessions.reduce((n, s) => n + ignoredCount(s), 0);
    const unknown = sessions.reduce((n, s) => n + Object.entries(s.ignored ?? {}).filter(([reason]) => reason.startsWith("unknown")).reduce((a, [, c]) => a + c, 0), 0);
    out.push(`${sessions.length} session(s), ${fired} with interventions` +
      (aside ? `; ${aside} records set aside${unknown ? `, ${unknown} of them of unknown types` : ""}${explain ? "" : " (--explain says which and why)"}` : ""));
  }
  if (sessions.length > 0) io.out(out.join("\n"));
  return reportReadErrors("replay", errors, sessions.length, io);
}
