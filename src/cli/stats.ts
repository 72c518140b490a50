/**
 * `loop-sentinel stats FILE|DIR... [--json] [--html FILE] [--config FILE] [--set key=value] [--lenient] [--summary]`
 * Calibration: per-session repetition figures and interventions, and their distributions over
 * loop and healthy sessions. The work is in src/stats; this file only reads arguments and prints.
 */
import * as fs from "node:fs";
import { collectSessions } from "../formats";
import { reportHtml } from "../stats/html";
import { buildReport, reportText } from "../stats/report";
import { readLabelFor, sessionStats } from "../stats/sessionStats";
import { parseSweep, sweepSessions, type Sweep } from "../stats/sweep";
import { flag, parseArgs, UsageError } from "./args";
import { reportReadErrors, type CliIO } from "./io";
import { loadCliConfig } from "./loadConfig";

export const STATS_USAGE = "stats FILE|DIR... [--json] [--html FILE] [--summary] [--config FILE] [--set key=value] [--sweep key=v1,v2|from..to] [--lenient]";

export function runStats(argv: string[], io: CliIO): number {
  const args = parseArgs(argv, ["config", "set", "html", "sweep"], ["json", "lenient", "summary"]);
  if (args.positionals.length === 0) throw new UsageError(`stats needs at least one file or folder\nusage: loop-sentinel ${STATS_USAGE}`);
  const sets = args.flags.get("set") ?? [];
  const config = loadCliConfig(flag(args, "config"), sets, io.err);
  const lenient = args.flags.has("lenient");
  // A bad --sweep is a usage error before any session is read.
  let sweepSpec: { key: string; values: string[] } | undefined;
  const sweepFlag = flag(args, "sweep");
  if (sweepFlag !== undefined) {
    try { sweepSpec = parseSweep(sweepFlag); } catch (err) { throw new UsageError(`--sweep ${(err as Error).message}`); }
  }
  const { sessions, errors } = collectSessions(args.positionals, { lenient });
  if (sessions.length === 0) return reportReadErrors("stats", errors, 0, io);
  const labels = sessions.map((s) => readLabelFor(s.file, io.err));
  const perSession = sessions.map((s, i) => {
    if (s.skipped) io.err(`${s.file}: skipped ${s.skipped} bad line(s)`);
    return sessionStats(s, config, labels[i]);
  });
  let sweep: Sweep | undefined;
  if (sweepSpec !== undefined) {
    const warned = new Set<string>();
    const warnOnce = (line: string) => { if (!warned.has(line)) { warned.add(line); io.err(line); } };
    sweep = sweepSessions(sessions.map((s, i) => ({ events: s.events, label: labels[i] })), sweepSpec.key, sweepSpec.values,
      (assignment) => loadCliConfig(flag(args, "config"), [...sets, assignment], warnOnce));
  }
  const report = buildReport(perSession, sets, sweep);
  const html = flag(args, "html");
  if (html !== undefined) {
    try { fs.writeFileSync(html, reportHtml(report)); } catch (err) { throw new UsageError(`cannot write ${html}: ${(err as Error).message}`); }
    io.err(`wrote ${html}`);
  }
  if (args.flags.has("json")) io.out(JSON.stringify(report, null, 1));
  else io.out(reportText(report, !args.flags.has("summary")));
  return reportReadErrors("stats", errors, sessions.length, io);
}
