/**
 * h. Re-reads of files that have not changed: a read of a file (or of a part already read) when
 * no write, edit or mutating command has happened since. One re-read is normal; a sweep where a
 * good share of the recent reads are re-reads (interleaved with fresh ones, so no adjacency) is
 * a model that lost track. Paging through other ranges of a large file reads new text each time
 * and is not a re-read, nor is a read whose output turned out different (the file changed under
 * us, e.g. a growing log). Back-to-back reads of the same part are tool-repeat's business and are
 * left out here, so that one loop is not reported twice. Shell display commands (`cat`, `sed -n`,
 * `nl`, `head`) count as reads for bash-only agents.
 */
import type { Detector, DetectorContext, DetectorDefinition, DetectorSettings, Finding } from "../detector";
import type { CallRecord, FileRead } from "../ledger";
import { BoundedMap } from "../boundedMap";
import { hashText, stableOutput } from "../signatures";
import { pathsMaybeWritten, samePathNamed } from "../shellCommands";

/** Parts of files remembered per epoch. */
const MAX_SEEN = 1024;
/** Ranges remembered per file (paging a huge file must not grow memory without end). */
const MAX_RANGES_PER_FILE = 256;
const MAX_EVIDENCE = 16;

/**
 * Counts are re-reads among the last `window` reads of the epoch; warn at 4 of 10 (pi-loop-police's
 * 40% redundant-read ratio).
 */
export const FILE_REREAD_DEFAULTS: DetectorSettings = { enabled: true, warnAt: 4, blockAt: 6, stopAt: 8, window: 10 };

const RANGE_KEY_PATTERNS = new Map<string, RegExp>();

/** `k=<number>` as one of a range key's comma-separated parts; made once per key. */
function rangeKeyPattern(k: string): RegExp {
  let re = RANGE_KEY_PATTERNS.get(k);
  if (!re) { re = new RegExp(`(?:^|,)${k}=(\\d+)(?:,|$)`); RANGE_KEY_PATTERNS.set(k, re); }
  return re;
}

/** A numeric line span, when a range key can be read as one; undefined for a whole file or unknown shapes. */
export function lineSpan(range: string): [number, number] | undefined {
  // A whole-file read (the usual one) matches none of the shapes below.
  if (range === "") return undefined;
  let m = /^(\d+)-(\d+)$/.exec(range);
  if (m) return [Number(m[1]), Number(m[2])];
  const num = (k: string) => { const r = rangeKeyPattern(k).exec(range); return r ? Number(r[1]) : undefined; };
  const start = num("start_line") ?? num("startLine");
  const end = num("end_line") ?? num("endLine");
  if (start !== undefined && end !== undefined) return [start, end];
  const offset = num("offset");
  const limit = num("limit");
  if (offset !== undefined && limit !== undefined) return [offset, offset + limit - 1];
  m = /view_range=\[(\d+),(-?\d+)\]/.exec(range);
  if (m && Number(m[2]) > 0) return [Number(m[1]), Number(m[2])];
  return undefined;
}

interface Seen {
  /** Range keys read this epoch, with the hash of what the latest read of each returned. */
  ranges: Map<string, string | undefined>;
  spans: [number, number][];
}

interface RecentRead {
  callId: string;
  path: string;
  range: string;
  again: boolean;
  /** The first read of this file this epoch: new information. */
  fresh: boolean;
}

class FileRereadDetector implements Detector {
  readonly id = "file-reread" as const;
  private epoch = -1;
  private seen = new BoundedMap<string, Seen>(MAX_SEEN);
  /** The recent reads of this epoch, oldest first, with whether each was a re-read. */
  private recent: RecentRead[] = [];
  /** The latest read's path and range, to leave back-to-back repeats to tool-repeat. */
  private lastRead = "";
  private events: number[] = [];
  private strongest = { count: 0, detail: "" };

  constructor(private readonly settings: DetectorSettings) {}

  private get window(): number {
    return Math.max(2, Math.min(100, Number(this.settings.window) || 10));
  }

  private startEpoch(epoch: number): void {
    if (epoch === this.epoch) return;
    this.epoch = epoch;
    // a new map, not clear(): see LineRepeatDetector.onRequestStart
    if (this.seen.size > 0) this.seen = new BoundedMap(MAX_SEEN);
    this.recent = [];
    this.events = [];
    this.lastRead = "";
    this.strongest = { count: 0, detail: "" };
  }

  /**
   * Whether this part of the file was already read this epoch: the same range again, or a whole-file
   * or wider read that covers an earlier one. A narrower range inside an earlier read is a zoom-in on
   * the code being traced, not a re-read. Records the read either way.
   */
  private reread(r: FileRead): { again: boolean; fresh: boolean } {
    let s = this.seen.get(r.path);
    const fresh = !s;
    if (!s) { s = { ranges: new Map(), spans: [] }; this.seen.set(r.path, s); }
    const span = lineSpan(r.range);
    const again = s.ranges.has(r.range) || (r.range === "" ? !fresh : span !== undefined && s.spans.some(([a, b]) => span[0] <= a && b <= span[1]));
    if (!s.ranges.has(r.range)) {
      s.ranges.set(r.range, undefined);
      if (s.ranges.size > MAX_RANGES_PER_FILE) s.ranges.delete(s.ranges.keys().next().value as string);
    }
    if (span && s.spans.length < 64) s.spans.push(span);
    return { again, fresh };
  }

  /** A command that may have written files it names (an inline script, a tool run on them): those files start over. */
  private forgetWrittenBy(command: string): void {
    const named = pathsMaybeWritten(command);
    if (named.length === 0) return;
    const baseNames = new Set(named.map(baseName));
    const changed: string[] = [];
    for (const [path] of this.seen.entries()) if (baseNames.has(baseName(path)) && named.some((n) => samePathNamed(n, path))) changed.push(path);
    for (const path of changed) this.seen.delete(path);
  }

  onToolCall(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    if (!call.reads) {
      if (call.command !== undefined && !call.search && ctx.epoch === this.epoch) this.forgetWrittenBy(call.command);
      return;
    }
    this.startEpoch(ctx.epoch);
    let any = false;
    const again: string[] = [];
    for (const r of call.reads) {
      const key = `${r.path}\u0000${r.range}`;
      const { again: isAgain, fresh } = this.reread(r);
      const backToBack = key === this.lastRead;
      this.lastRead = key;
      if (backToBack) continue;
      this.recent.push({ callId: call.id, path: r.path, range: r.range, again: isAgain, fresh });
      if (isAgain) { any = true; again.push(r.range === "" ? r.path : `${r.path} (${r.range})`); }
    }
    if (this.recent.length > this.window) this.recent.splice(0, this.recent.length - this.window);
    if (!any) return;
    this.events.push(call.eventIndex);
    if (this.events.length > MAX_EVIDENCE) this.events.shift();
    const count = this.countRereads();
    if (count > this.strongest.count) this.strongest = { count, detail: again[0] };
    if (count < 2) return;
    return [{
      detector: this.id,
      key: this.id,
      count,
      tool: call.name,
      toolCallId: call.id,
      summary: `${count} of the last ${this.recent.length} file reads were re-reads of unchanged files (now ${again.join(", ")}); nothing was written since`,
      suggestion: "These files have not changed since you read them: work from what you already read, note what you learn per file, and move on to files you have not read yet.",
      evidence: { events: [...this.events], count, tool: call.name, path: call.reads[0]?.path },
    }];
  }

  /**
   * Re-reads in the window, less half the new files opened since the first of them: a model still
   * opening new files is tracing code, not going round in circles.
   */
  private countRereads(): number {
    const first = this.recent.findIndex((x) => x.again);
    if (first < 0) return 0;
    const rereads = this.recent.filter((x) => x.again).length;
    const freshAfter = this.recent.slice(first).filter((x) => x.fresh).length;
    return rereads - Math.floor(freshAfter / 2);
  }

  onToolResult(call: CallRecord, ctx: DetectorContext): void {
    if (!call.reads || !call.result || ctx.epoch !== this.epoch) return;
    const result = call.result;
    // A batch read (Roo's read_file with several files) answers with all files in one text: each file's
    // content is judged by its own part of it, so that the same file in a reshuffled batch compares equal.
    const hashes = call.reads.length > 1 ? sectionHashes(result.text, call.reads.map((r) => r.path)) : [result.outputHash];
    call.reads.forEach((r, i) => {
      const s = this.seen.peek(r.path);
      if (!s) return;
      // A failed read showed nothing: reading it again is a retry, not a re-read.
      if (!result.ok) { s.ranges.delete(r.range); return; }
      const hash = hashes[i];
      // The file's part could not be found in the answer: nothing to compare.
      if (hash === undefined) return;
      const before = s.ranges.get(r.range);
      s.ranges.set(r.range, hash);
      if (before !== undefined && before !== hash) {
        // New content: the file changed under us, so this read was not redundant after all.
        for (const x of this.recent) if (x.callId === call.id && x.path === r.path && x.range === r.range) x.again = false;
      }
    });
  }

  reset(): void {
    this.epoch = -1;
    this.seen.clear();
    this.recent = [];
    this.events = [];
    this.lastRead = "";
    this.strongest = { count: 0, detail: "" };
  }

  status() {
    const warnAt = this.settings.warnAt || 1;
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.count / warnAt), detail: this.strongest.detail ? `${this.strongest.detail} ${this.strongest.count}/${warnAt}` : "" };
  }
}

/**
 * The hash of each file's part of a batch read's answer: from where its path is named to where the
 * next named file begins (answers list the files in the order asked). Undefined for a file whose path
 * the answer does not name.
 */
export function sectionHashes(text: string, paths: readonly string[]): (string | undefined)[] {
  const starts = paths.map((p) => text.indexOf(p));
  const sorted = starts.filter((x) => x >= 0).sort((a, b) => a - b);
  return starts.map((start) => {
    if (start < 0) return undefined;
    const end = sorted.find((x) => x > start) ?? text.length;
    return hashText(stableOutput(text.slice(start, end)));
  });
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

export const fileReread: DetectorDefinition = {
  id: "file-reread",
  title: "Re-reading unchanged files",
  description: "Reads of files already read, with no write, edit or mutating command since, making up a large share of recent reads.",
  channel: "tool",
  defaults: FILE_REREAD_DEFAULTS,
  create: (settings) => new FileRereadDetector(settings),
  shortTitle: "File rereads",
  strength: {
    unit: "re-reads",
    meaning: "reads of a file (or a part of it) already read, with no write, edit or changing command since, among the most recent reads (see *Window*). Reading other parts of a large file is not a re-read.",
  },
  parameters: {
    window: {
      description: "How many of the most recent file reads the re-reads are counted in (2 to 100). Example: `10` (the default) with *Warn At* `4` warns when 4 of the last 10 reads were re-reads.",
      tuning: true,
    },
  },
};
