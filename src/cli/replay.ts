/** `loop-sentinel replay FILE|DIR... [--json] [--explain] [--config FILE] [--set k=v] [--lenient]` */
import type { Intervention } from "../engine/session";
import { replayEvents } from "../engine/replay";
import { collectSessions, ignoredCount, SESSION_READERS } from "../formats";
import { EVENT_KINDS } from "../engine/events";
import type { RecordedSession } from "../formats/reader";
import { flag, parseArgs, UsageError } from "./args";
import { loadCliConfig } from "./loadConfig";
import { reportReadErrors, type CliIO } from "./io";

export const REPLAY_USAGE = "replay FILE|DIR... [--json] [--explain] [--config FILE] [--set key=value] [--lenient]";

function describeEvent(s: RecordedSession, i: number): string {
  const e = s.events[i];
  if (!e) return "";
  switch (e.t) {
    case "tool_call": return `tool_call ${e.name}`;
    case "reasoning": case "text": return `${e.t} chunk`;
    default: return e.t;
  }
}

/** Seconds since the session's first timestamp, when the trace has timestamps. */
function elapsed(s: RecordedSession, i: number): string {
  const t0 = s.events.find((e) => e.ts !== undefined)?.ts;
  const t = s.events[i]?.ts;
  return t0 === undefined || t === undefined ? "" : `+${((t - t0) / 1000).toFixed(1)}s`;
}

/** Events of a session counted by kind, in the trace's kind order. */
export function eventsByKind(s: RecordedSession): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const k of EVENT_KINDS) counts[k] = 0;
  for (const e of s.events) counts[e.t] = (counts[e.t] ?? 0) + 1;
  return counts;
}

/** What the reader made of a file: its format, the events by kind, what it skipped or set aside and why. */
function formatExplanation(s: RecordedSession): string[] {
  const reader = SESSION_READERS.find((r) => r.format === s.format);
  const lines = [`  read as: ${s.format}${reader ? ` (${reader.description})` : ""}`];
  lines.push(`  events: ${Object.entries(eventsByKind(s)).map(([k, n]) => `${k} ${n}`).join(", ")}`);
  if (s.skipped) lines.push(`  skipped: ${s.skipped} bad line(s) or record(s) (--lenient)`);
  const ignored = Object.entries(s.ignored ?? {}).sort((a, b) => b[1] - a[1]);
  if (ignored.length === 0) lines.push("  set aside: nothing");
  else {
    lines.push(`  set aside: ${ignoredCount(s)} record(s), not events:`);
    for (const [reason, n] of ignored) lines.push(`    ${String(n).padStart(5)} × ${reason}`);
  }
  return lines;
}

function formatTimeline(s: RecordedSession, interventions: Intervention[], explain: boolean): string[] {
  const aside = ignoredCount(s);
  const lines = [`${s.file}  (${s.format}, ${s.events.length} events${s.skipped ? `, ${s.skipped} skipped` : ""}${aside ? `, ${aside} records set aside` : ""})`];
  if (explain) lines.push(...formatExplanation(s));
  if (interventions.length === 0) { lines.push("  nothing fired"); return lines; }
  const guided = new Set<string>();
  for (const iv of interventions) {
    lines.push(`  event ${String(iv.event).padStart(5)} ${elapsed(s, iv.event).padStart(8)}  ${iv.action.toUpperCase().padEnd(5)}  ${iv.detector.padEnd(14)}  at ${describeEvent(s, iv.event)}`);
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
  // the results, and the exit code says so: bad input never looks like a complete success.
  const { sessions, errors } = collectSessions(args.positionals, { lenient });
  const json = args.flags.has("json");
  const out: string[] = [];
  let fired = 0;
  for (const s of sessions) {
    const { interventions, faults } = replayEvents(s.events, config);
    if (faults.count > 0) io.err(`${s.file}: ${faults.count} detector failure(s), the first: ${faults.first} (a bug: please report it)`);
    fired += interventions.length ? 1 : 0;
    if (json) {
      out.push(JSON.stringify({
        file: s.file,
        format: s.format,
        events: s.events.length,
        ...(s.skipped ? { skipped: s.skipped } : {}),
        ...(explain ? { eventsByKind: eventsByKind(s), ignored: s.ignored ?? {} } : {}),
        interventions: interventions.map((iv) => ({ event: iv.event, detector: iv.detector, action: iv.action, message: iv.message, key: iv.key, evidence: iv.evidence })),
      }));
    } else out.push(...formatTimeline(s, interventions, explain), "");
    if (lenient && s.skipped) io.err(`${s.file}: skipped ${s.skipped} bad line(s)`);
  }
  if (!json) {
    const aside = sessions.reduce((n, s) => n + ignoredCount(s), 0);
    const unknown = sessions.reduce((n, s) => n + Object.entries(s.ignored ?? {}).filter(([reason]) => reason.startsWith("unknown")).reduce((a, [, c]) => a + c, 0), 0);
    out.push(`${sessions.length} session(s), ${fired} with interventions` +
      (aside ? `; ${aside} records set aside${unknown ? `, ${unknown} of them of unknown types` : ""}${explain ? "" : " (--explain says which and why)"}` : ""));
  }
  if (sessions.length > 0) io.out(out.join("\n"));
  return reportReadErrors("replay", errors, sessions.length, io);
}
