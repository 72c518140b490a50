/** `loop-sentinel convert IN... --to trace [--out FILE|DIR] [--lenient]`: any readable session → trace v1 JSONL. */
import * as fs from "node:fs";
import * as path from "node:path";
import type { TraceEvent } from "../engine/events";
import { collectSessions } from "../formats";
import type { RecordedSession } from "../formats/reader";
import { flag, parseArgs, UsageError } from "./args";
import { reportReadErrors, type CliIO } from "./io";

export const CONVERT_USAGE = "convert FILE|DIR... --to trace [--out FILE|DIR] [--lenient]";

/** One event a line, fields in the order the trace format lists them. */
export function traceLines(events: readonly TraceEvent[]): string {
  return events.map((e) => JSON.stringify(e)).join("\n") + (events.length ? "\n" : "");
}

/** `x.jsonl`, `x.json`, a task folder `x/` → `x.trace.jsonl`; names already used get a suffix. */
function outputName(s: RecordedSession, used: Set<string>): string {
  const base = path.basename(s.file.replace(/[\\/]+$/, "")).replace(/(\.trace)?\.jsonl?$/i, "") || "session";
  let name = `${base}.trace.jsonl`;
  for (let i = 2; used.has(name); i++) name = `${base}-${i}.trace.jsonl`;
  used.add(name);
  return name;
}

export function runConvert(argv: string[], io: CliIO): number {
  const args = parseArgs(argv, ["to", "out"], ["lenient"]);
  if (args.positionals.length === 0) throw new UsageError(`convert needs at least one file or folder\nusage: loop-sentinel ${CONVERT_USAGE}`);
  const to = flag(args, "to") ?? "trace";
  if (to !== "trace") throw new UsageError(`--to ${to}: the only output format is "trace"`);
  const lenient = args.flags.has("lenient");
  const { sessions, errors } = collectSessions(args.positionals, { lenient });
  if (sessions.length === 0) return reportReadErrors("convert", errors, 0, io);
  for (const s of sessions) if (s.skipped) io.err(`${s.file}: skipped ${s.skipped} bad line(s)`);
  const out = flag(args, "out");

  if (out === undefined) {
    if (sessions.length > 1) throw new UsageError(`${sessions.length} sessions found: give --out DIR to write one trace file each`);
    io.out(traceLines(sessions[0].events).replace(/\n$/, ""));
    return reportReadErrors("convert", errors, sessions.length, io);
  }
  const toFolder = sessions.length > 1 || out.endsWith("/") || out.endsWith(path.sep) || (fs.existsSync(out) && fs.statSync(out).isDirectory());
  const used = new Set<string>();
  for (const s of sessions) {
    const target = toFolder ? path.join(out, outputName(s, used)) : out;
    try {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, traceLines(s.events));
    } catch (err) {
      throw new UsageError(`cannot write ${target}: ${(err as Error).message}`);
    }
    io.err(`${s.file} (${s.format}, ${s.events.length} events) → ${target}`);
  }
  return reportReadErrors("convert", errors, sessions.length, io);
}
