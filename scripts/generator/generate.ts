/**
 * The loop generator's driver (issue 16): draws cases from every text and tool class and from
 * their look-alikes, replays each through a fresh engine session with the default settings, and
 * reports per family how soon loops were caught and how often look-alikes were interrupted.
 * `npm run bench -- --generate [--seed N] [--cases N] [--family NAME] [--dump DIR]`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession, type Intervention } from "../../src/engine/session";
import { seedOf, seededRng } from "./kit";
import { textClasses } from "./textClasses";
import { toolClasses } from "./toolClasses";
import type { CaseGenerator, GeneratedCase } from "./types";

export const DEFAULT_SEED = 16;
/** Cases drawn per family unless a total is asked for: a new family leaves the others' draws as they were. */
export const DEFAULT_PER_FAMILY = 200;

export interface CaseOutcome {
  c: GeneratedCase;
  seed: number;
  first?: Intervention;
  /** Loops: repetitions after onset when the engine first acted (0 = during the first copy). */
  reps?: number;
  /** Loops: stream and tool-output characters from onset to the first intervention, inclusive. */
  charsAfterOnset?: number;
}

export interface FamilyRow {
  family: string;
  kind: "loop" | "lookalike";
  imitates: string;
  cases: number;
  /** Loops: caught at all / within two repetitions of onset / before any repetition began. */
  caught: number;
  inTime: number;
  /** Within three repetitions (a short phrase needs a fourth copy: said three times it can be emphasis). */
  withinThree: number;
  early: number;
  repsMedian?: number;
  repsP90?: number;
  charsMedian?: number;
  /** Look-alikes: cases with any intervention. */
  falseAlarms: number;
  detectors: Record<string, number>;
}

function charsOf(e: TraceEvent): number {
  if (e.t === "reasoning" || e.t === "text") return e.delta.length;
  if (e.t === "tool_result") return (e.output ?? e.error ?? "").length;
  return 0;
}

export function runCase(c: GeneratedCase, seed: number): CaseOutcome {
  const session = new LoopSession();
  let first: Intervention | undefined;
  for (const e of c.events) {
    const iv = session.push(e);
    if (!first && iv.length) { first = iv[0]; if (c.kind === "lookalike") break; }
  }
  const out: CaseOutcome = { c, seed, first };
  if (c.kind === "loop" && first && c.copyStarts?.length) {
    const starts = c.copyStarts;
    let reps = -1;
    for (let k = 0; k < starts.length; k++) if (starts[k] <= first.event) reps = k;
    out.reps = reps;
    let chars = 0;
    for (let i = Math.max(0, starts[0]); i <= first.event && i < c.events.length; i++) chars += charsOf(c.events[i]);
    out.charsAfterOnset = chars;
  }
  return out;
}

function quantile(xs: number[], q: number): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

export interface GeneratorRun { rows: FamilyRow[]; outcomes: CaseOutcome[]; ms: number }

export function runGenerator(opts: { seed?: number; cases?: number; family?: string; generators?: CaseGenerator[] } = {}): GeneratorRun {
  const seed = opts.seed ?? DEFAULT_SEED;
  const all = (opts.generators ?? [...textClasses, ...toolClasses]).filter((g) => !opts.family || g.family === opts.family);
  if (all.length === 0) throw new Error(`no generator family ${opts.family ?? ""}`);
  const perFamily = opts.cases === undefined ? DEFAULT_PER_FAMILY : Math.max(1, Math.ceil(opts.cases / all.length));
  const t0 = Date.now();
  const rows: FamilyRow[] = [];
  const outcomes: CaseOutcome[] = [];
  for (const g of all) {
    const row: FamilyRow = { family: g.family, kind: g.kind, imitates: g.imitates, cases: 0, caught: 0, inTime: 0, withinThree: 0, early: 0, falseAlarms: 0, detectors: {} };
    const reps: number[] = [], chars: number[] = [];
    for (let i = 0; i < perFamily; i++) {
      // one seed per case: a case is reproducible alone (--family), and adding a family shifts no other
      const caseSeed = seedOf(`${seed}:${g.family}:${i}`);
      const c = g.draw(seededRng(caseSeed));
      const o = runCase(c, caseSeed);
      outcomes.push(o);
      row.cases++;
      if (o.first) row.detectors[o.first.detector] = (row.detectors[o.first.detector] ?? 0) + 1;
      if (g.kind === "lookalike") { if (o.first) row.falseAlarms++; continue; }
      if (!o.first) continue;
      row.caught++;
      if (o.reps !== undefined) {
        if (o.reps <= 2) row.inTime++;
        if (o.reps <= 3) row.withinThree++;
        if (o.reps < 1) row.early++;
        reps.push(Math.max(0, o.reps));
      }
      if (o.charsAfterOnset !== undefined) chars.push(o.charsAfterOnset);
    }
    row.repsMedian = quantile(reps, 0.5);
    row.repsP90 = quantile(reps, 0.9);
    row.charsMedian = quantile(chars, 0.5);
    rows.push(row);
  }
  return { rows, outcomes, ms: Date.now() - t0 };
}

const pct = (n: number, d: number) => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}%`);
const topDetectors = (d: Record<string, number>) => Object.entries(d).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, v]) => `${k} ${v}`).join(", ");

/** The report as markdown tables: loops, then look-alikes. */
export function formatReport(run: GeneratorRun, seed: number): string {
  const loops = run.rows.filter((r) => r.kind === "loop");
  const looks = run.rows.filter((r) => r.kind === "lookalike");
  const lines = [
    `Loop generator, seed ${seed}: ${run.outcomes.length} cases in ${(run.ms / 1000).toFixed(1)} s`,
    "",
    "| loop class | cases | caught | within 2 repetitions | within 3 | acted on copy 0's events | repetitions after onset (median / p90) | chars after onset (median) | first detector |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...loops.map((r) => `| ${r.family} | ${r.cases} | ${pct(r.caught, r.cases)} | ${pct(r.inTime, r.cases)} | ${pct(r.withinThree, r.cases)} | ${r.early} | ${r.repsMedian ?? "-"} / ${r.repsP90 ?? "-"} | ${r.charsMedian ?? "-"} | ${topDetectors(r.detectors)} |`),
    "",
    "| look-alike family | imitates | cases | false alarms | detectors |",
    "| --- | --- | --- | --- | --- |",
    ...looks.map((r) => `| ${r.family} | ${r.imitates} | ${r.cases} | ${pct(r.falseAlarms, r.cases)} | ${topDetectors(r.detectors)} |`),
  ];
  return lines.join("\n") + "\n";
}

/** Writes the misses, late catches and false alarms as trace files, to replay with the CLI. */
export function dumpFailures(run: GeneratorRun, dir: string, max = 20): number {
  fs.mkdirSync(dir, { recursive: true });
  const perFamily = new Map<string, number>();
  let written = 0;
  for (const o of run.outcomes) {
    const bad = o.c.kind === "lookalike" ? !!o.first : !o.first || (o.reps ?? 99) > 2;
    if (!bad) continue;
    const n = perFamily.get(o.c.family) ?? 0;
    if (n >= max) continue;
    perFamily.set(o.c.family, n + 1);
    const name = `${o.c.family}-${o.seed}.trace.jsonl`;
    const meta = { family: o.c.family, kind: o.c.kind, params: o.c.params, copyStarts: o.c.copyStarts, first: o.first ? { event: o.first.event, detector: o.first.detector, summary: o.first.summary } : null, reps: o.reps };
    fs.writeFileSync(path.join(dir, name), o.c.events.map((e) => JSON.stringify(e)).join("\n") + "\n");
    fs.writeFileSync(path.join(dir, name.replace(/\.trace\.jsonl$/, ".meta.json")), JSON.stringify(meta, null, 1) + "\n");
    written++;
  }
  return written;
}

/** Command line of `bench --generate`. */
export function generateMain(argv: string[]): void {
  const value = (flag: string) => { const i = argv.indexOf(flag); return i >= 0 ? argv[i + 1] : undefined; };
  const seed = value("--seed") !== undefined ? Number(value("--seed")) : DEFAULT_SEED;
  const cases = value("--cases") !== undefined ? Number(value("--cases")) : undefined;
  if (!Number.isInteger(seed) || (cases !== undefined && (!Number.isInteger(cases) || cases < 1))) throw new Error("--seed and --cases take whole numbers");
  const run = runGenerator({ seed, cases, family: value("--family") });
  process.stdout.write(formatReport(run, seed));
  const dump = value("--dump");
  if (dump) process.stdout.write(`\n${dumpFailures(run, dump)} failing cases written to ${dump}\n`);
  if (argv.includes("--json")) process.stdout.write(JSON.stringify(run.rows) + "\n");
}
