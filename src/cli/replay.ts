/** `loop-sentinel replay FILE|DIR... [--json] [--config FILE] [--set k=v] [--lenient]` */
import type { Intervention } from "../engine/session";
import { replayEvents } from "../engine/replay";
import { readSessions } from "../formats";
import type { RecordedSession } from "../formats/reader";
import { flag, parseArgs, UsageError } from "./args";
import { loadCliConfig } from "./loadConfig";
import type { CliIO } from "./io";

export const REPLAY_USAGE = "replay FILE|DIR... [--json] [--config FILE] [--set key=value] [--lenient]";

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

function formatTimeline(s: RecordedSession, interventions: Intervention[]): string[] {
  const lines = [`${s.file}  (${s.format}, ${s.events.length} events${s.skipped ? `, ${s.skipped} skipped` : ""})`];
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
  const args = parseArgs(argv, ["config", "set"], ["json", "lenient"]);
  if (args.positionals.length === 0) throw new UsageError(`replay needs at least one file or folder\nusage: loop-sentinel ${REPLAY_USAGE}`);
  const config = loadCliConfig(flag(args, "config"), args.flags.get("set") ?? [], io.err);
  const lenient = args.flags.has("lenient");
  // Read and check every input before printing anything: bad input must not look like a partial success.
  const sessions = readSessions(args.positionals, { lenient });
  const json = args.flags.has("json");
  const out: string[] = [];
  let fired = 0;
  for (const s of sessions) {
    const { interventions } = replayEvents(s.events, config);
    fired += interventions.length ? 1 : 0;
    if (json) {
      out.push(JSON.stringify({
        file: s.file,
        format: s.format,
        events: s.events.length,
        ...(s.skipped ? { skipped: s.skipped } : {}),
        interventions: interventions.map((iv) => ({ event: iv.event, detector: iv.detector, action: iv.action, message: iv.message, key: iv.key, evidence: iv.evidence })),
      }));
    } else out.push(...formatTimeline(s, interventions), "");
    if (lenient && s.skipped) io.err(`${s.file}: skipped ${s.skipped} bad line(s)`);
  }
  if (!json) out.push(`${sessions.length} session(s), ${fired} with interventions`);
  io.out(out.join("\n"));
  return 0;
}
