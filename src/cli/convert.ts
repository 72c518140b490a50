/** `loop-sentinel convert IN... --to trace [--out FILE|DIR] [--lenient]`: any readable session → trace v1 JSONL. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TraceEvent } from "../engine/events";
import { asFormatError, discoverSessions, readFound } from "../formats";
import { forEachLineOfFile } from "../formats/lines";
import type { ReadOptions, SessionFormatError } from "../formats/reader";
import { flag, parseArgs, UsageError } from "./args";
import { reportReadErrors, type CliIO } from "./io";

export const CONVERT_USAGE = "convert FILE|DIR... --to trace [--out FILE|DIR] [--lenient]";

/** `x.jsonl`, `x.json`, a task folder `x/` → `x.trace.jsonl`; names already used get a suffix. */
function outputName(s: { file: string }, used: Set<string>): string {
  const base = path.basename(s.file.replace(/[\\/]+$/, "")).replace(/(\.trace)?\.jsonl?$/i, "") || "session";
  let name = `${base}.trace.jsonl`;
  for (let i = 2; used.has(name); i++) name = `${base}-${i}.trace.jsonl`;
  used.add(name);
  return name;
}

/** Trace lines gathered into pieces of about this size before each write. */
const WRITE_PIECE_CHARS = 1 << 16;

/** One session converted, its trace lines in a file of their own until every path has been read. */
interface Converted {
  file: string;
  format: string;
  events: number;
  skipped: number;
  lines: string;
}

/** Appends trace lines to a file in pieces: memory holds one piece, not the session. */
class TraceLineWriter {
  private fd: number;
  private piece = "";
  events = 0;
  constructor(readonly file: string) { this.fd = fs.openSync(file, "w"); }
  add(e: TraceEvent): void {
    this.piece += JSON.stringify(e) + "\n";
    this.events++;
    if (this.piece.length >= WRITE_PIECE_CHARS) this.flush();
  }
  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
  private flush(): void {
    if (this.piece) fs.writeSync(this.fd, this.piece);
    this.piece = "";
  }
}

export function runConvert(argv: string[], io: CliIO): number {
  const args = parseArgs(argv, ["to", "out"], ["lenient"]);
  if (args.positionals.length === 0) throw new UsageError(`convert needs at least one file or folder\nusage: loop-sentinel ${CONVERT_USAGE}`);
  const to = flag(args, "to") ?? "trace";
  if (to !== "trace") throw new UsageError(`--to ${to}: the only output format is "trace"`);
  const lenient = args.flags.has("lenient");
  // Each session is written out as it is read (streamed where its format allows), into a scratch
  // folder: where it goes (a file, a folder, stdout) depends on how many sessions there are.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "loop-sentinel-convert-"));
  try {
    const { sessions, errors } = convertAll(args.positionals, { lenient }, scratch);
    if (sessions.length === 0) return reportReadErrors("convert", errors, 0, io);
    for (const s of sessions) if (s.skipped) io.err(`${s.file}: skipped ${s.skipped} bad line(s)`);
    const out = flag(args, "out");

    if (out === undefined) {
      if (sessions.length > 1) throw new UsageError(`${sessions.length} sessions found: give --out DIR to write one trace file each`);
      printLines(sessions[0].lines, io);
      return reportReadErrors("convert", errors, sessions.length, io);
    }
    const toFolder = sessions.length > 1 || out.endsWith("/") || out.endsWith(path.sep) || (fs.existsSync(out) && fs.statSync(out).isDirectory());
    const used = new Set<string>();
    for (const s of sessions) {
      const target = toFolder ? path.join(out, outputName(s, used)) : out;
      try {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(s.lines, target);
      } catch (err) {
        throw new UsageError(`cannot write ${target}: ${(err as Error).message}`);
      }
      io.err(`${s.file} (${s.format}, ${s.events} events) → ${target}`);
    }
    return reportReadErrors("convert", errors, sessions.length, io);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every session under the paths, each as trace lines in a scratch file; an error per path that could not be read. */
function convertAll(paths: string[], options: ReadOptions, scratch: string): { sessions: Converted[]; errors: SessionFormatError[] } {
  const sessions: Converted[] = [];
  const errors: SessionFormatError[] = [];
  let writing: TraceLineWriter | undefined;
  let opened = 0;
  for (const found of discoverSessions(paths)) {
    if ("error" in found) { errors.push(found.error); continue; }
    try {
      readFound(found, options, () => {
        const w = writing = new TraceLineWriter(path.join(scratch, `${opened++}.trace.jsonl`));
        return {
          event: (e) => w.add(e),
          end: (s) => { w.close(); writing = undefined; sessions.push({ file: s.file, format: s.format, events: w.events, skipped: s.skipped, lines: w.file }); },
        };
      });
    } catch (err) {
      // a session that failed part-way is not converted: its lines so far go with the scratch folder
      if (writing) { try { writing.close(); } catch { /* already closed */ } writing = undefined; }
      errors.push(asFormatError(found.path, err));
    }
  }
  return { sessions, errors };
}

/** A session's trace lines to stdout a piece at a time, as one text ending in one newline. */
function printLines(file: string, io: CliIO): void {
  let piece = "";
  let printed = false;
  forEachLineOfFile(file, (line) => {
    if (piece.length >= WRITE_PIECE_CHARS) { io.out(piece); printed = true; piece = ""; }
    piece += line + "\n";
  });
  // the last piece without its newline: io.out ends every text with one
  if (piece !== "" || !printed) io.out(piece.replace(/\n$/, ""));
}
