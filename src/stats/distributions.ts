/**
 * Across sessions: the distribution of each calibration figure in loop and healthy sessions
 * (labels beside the traces), where the two separate, and how each detector that fired did.
 */
import type { SessionMetrics, SessionStatsReport, Verdict } from "./sessionStats";

export type Group = "loop" | "healthy" | "unlabelled";
export const GROUPS: readonly Group[] = ["loop", "healthy", "unlabelled"];

export interface MetricInfo {
  id: keyof SessionMetrics;
  title: string;
  /** "high": loops score high (counts); "low": loops score low (distinct-call share). */
  loopsAre: "high" | "low";
}

export const METRICS: readonly MetricInfo[] = [
  { id: "sameCall", title: "most calls of one identical tool call", loopsAre: "high" },
  { id: "sameCallSameOutput", title: "most identical calls that also returned identical output", loopsAre: "high" },
  { id: "sameCallNoProgress", title: "most identical calls with no write, edit or mutating command in between", loopsAre: "high" },
  { id: "longestRun", title: "longest run of consecutive identical calls", loopsAre: "high" },
  { id: "sameError", title: "most failures of one tool with the same error", loopsAre: "high" },
  { id: "sameFileReads", title: "most reads of one file with no progress in between", loopsAre: "high" },
  { id: "streamLineRepeat", title: "most copies of one line within a single model response", loopsAre: "high" },
  { id: "distinctCallPct", title: "distinct calls as a share of all calls (%)", loopsAre: "low" },
];

export interface Bucket {
  label: string;
  min: number;
  /** Inclusive; Infinity for the last bucket. */
  max: number;
  counts: Record<Group, number>;
}

export interface Summary { n: number; min: number; median: number; p90: number; max: number }

export interface Separation {
  /** Flagging a session when its figure is ≥ a threshold (≤ for "low" metrics) in from..to gives this split. */
  from: number;
  to: number;
  loopsFlagged: number;
  loops: number;
  healthyFlagged: number;
  healthy: number;
  /** Every loop flagged and no healthy session flagged. */
  clean: boolean;
  /** No threshold flags more loops than healthy sessions: the figure does not tell them apart. */
  useless: boolean;
  /** The strictest threshold that still flags every loop, and the healthy sessions it flags too. */
  allLoops: { threshold: number; healthyFlagged: number };
}

export interface MetricDistribution {
  metric: keyof SessionMetrics;
  title: string;
  loopsAre: "high" | "low";
  buckets: Bucket[];
  summary: Partial<Record<Group, Summary>>;
  /** The best threshold over the labelled sessions; undefined without both loop and healthy sessions. */
  separation?: Separation;
  /** The same per loop kind (the label's "kind"): each kind's loops against all healthy sessions. */
  byKind: Record<string, Separation>;
}

const COUNT_EDGES = [0, 1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 50];
const PCT_EDGES = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

function bucketsFor(edges: readonly number[], pct: boolean): Bucket[] {
  const out: Bucket[] = [];
  for (let i = 0; i < edges.length; i++) {
    const min = edges[i];
    const next = edges[i + 1];
    const max = next === undefined ? Infinity : pct && next === 100 ? 99 : next - 1;
    if (pct && min === 100) { out.push({ label: "100", min: 100, max: 100, counts: zero() }); continue; }
    const label = max === Infinity ? `${min}+` : max === min ? `${min}` : `${min}–${max}`;
    out.push({ label, min, max, counts: zero() });
  }
  return out;
}

function zero(): Record<Group, number> {
  return { loop: 0, healthy: 0, unlabelled: 0 };
}

export function groupOf(s: SessionStatsReport): Group {
  return s.label ? (s.label.loop ? "loop" : "healthy") : "unlabelled";
}

function summarise(values: number[]): Summary | undefined {
  if (values.length === 0) return undefined;
  const v = [...values].sort((a, b) => a - b);
  const at = (q: number) => v[Math.min(v.length - 1, Math.floor(q * (v.length - 1) + 0.5))];
  return { n: v.length, min: v[0], median: at(0.5), p90: at(0.9), max: v[v.length - 1] };
}

/**
 * The threshold that best separates loops from healthy sessions: most loops flagged minus
 * healthy sessions flagged (a false alarm costs as much as a miss). Any threshold from `from`
 * to `to` gives that same split.
 */
function bestSeparation(loops: number[], healthy: number[], loopsAre: "high" | "low"): Separation | undefined {
  if (loops.length === 0 || healthy.length === 0) return undefined;
  const high = loopsAre === "high";
  const flagged = (v: number, t: number) => (high ? v >= t : v <= t);
  // Observed values, from the healthy end towards the loop end.
  const candidates = [...new Set([...loops, ...healthy])].filter((v) => !high || v > 0).sort((a, b) => (high ? a - b : b - a));
  let best: Separation | undefined;
  let bestScore = -Infinity;
  let previous: number | undefined;
  const strictest = high ? Math.min(...loops) : Math.max(...loops);
  const allLoops = { threshold: strictest, healthyFlagged: healthy.filter((v) => flagged(v, strictest)).length };
  for (const t of candidates) {
    const lf = loops.filter((v) => flagged(v, t)).length;
    const hf = healthy.filter((v) => flagged(v, t)).length;
    const score = lf - hf;
    if (score > bestScore) {
      bestScore = score;
      const from = previous === undefined ? t : high ? previous + 1 : previous - 1;
      best = { from, to: t, loopsFlagged: lf, loops: loops.length, healthyFlagged: hf, healthy: healthy.length, clean: lf === loops.length && hf === 0, useless: score <= 0, allLoops };
    } else if (best && lf === best.loopsFlagged && hf === best.healthyFlagged) {
      best.to = t;
    }
    previous = t;
  }
  return best;
}

export function distributions(sessions: readonly SessionStatsReport[]): MetricDistribution[] {
  return METRICS.map((m) => {
    const buckets = bucketsFor(m.id === "distinctCallPct" ? PCT_EDGES : COUNT_EDGES, m.id === "distinctCallPct");
    const values: Record<Group, number[]> = { loop: [], healthy: [], unlabelled: [] };
    const loopsByKind = new Map<string, number[]>();
    for (const s of sessions) {
      const v = s.metrics[m.id];
      const g = groupOf(s);
      values[g].push(v);
      if (g === "loop") {
        const kind = s.label?.kind ?? "unknown";
        loopsByKind.set(kind, [...(loopsByKind.get(kind) ?? []), v]);
      }
      const b = buckets.find((x) => v >= x.min && v <= x.max) ?? buckets[buckets.length - 1];
      b.counts[g]++;
    }
    const byKind: Record<string, Separation> = {};
    for (const [kind, loops] of [...loopsByKind].sort(([a], [b]) => a.localeCompare(b))) {
      const sep = bestSeparation(loops, values.healthy, m.loopsAre);
      if (sep) byKind[kind] = sep;
    }
    const summary: Partial<Record<Group, Summary>> = {};
    for (const g of GROUPS) { const s = summarise(values[g]); if (s) summary[g] = s; }
    // Trim empty buckets at both ends so that tables stay short.
    const empty = (b: Bucket) => GROUPS.every((g) => b.counts[g] === 0);
    let first = 0, last = buckets.length - 1;
    while (last > 0 && empty(buckets[last])) last--;
    while (first < last && empty(buckets[first])) first++;
    return { metric: m.id, title: m.title, loopsAre: m.loopsAre, buckets: buckets.slice(first, last + 1), summary, separation: bestSeparation(values.loop, values.healthy, m.loopsAre), byKind };
  });
}

export interface DetectorOutcome {
  detector: string;
  /** Sessions in which it fired at all, per group. */
  fired: Record<Group, number>;
  /** In loop sessions, where its first intervention fell. */
  caught: number;
  early: number;
  late: number;
  /** Its first events, for the distribution of when it fires. */
  firstEvents: number[];
}

/** One row per detector that fired anywhere: discovered from the interventions, not from a registry. */
export function detectorOutcomes(sessions: readonly SessionStatsReport[]): DetectorOutcome[] {
  const rows = new Map<string, DetectorOutcome>();
  for (const s of sessions) {
    const g = groupOf(s);
    const firstByDetector = new Map<string, number>();
    for (const iv of s.interventions) if (!firstByDetector.has(iv.detector)) firstByDetector.set(iv.detector, iv.event);
    for (const [detector, first] of firstByDetector) {
      let row = rows.get(detector);
      if (!row) { row = { detector, fired: zero(), caught: 0, early: 0, late: 0, firstEvents: [] }; rows.set(detector, row); }
      row.fired[g]++;
      row.firstEvents.push(first);
      if (g === "loop" && s.label) {
        if (typeof s.label.onset === "number" && first < s.label.onset) row.early++;
        else if (typeof s.label.deadline === "number" && first > s.label.deadline) row.late++;
        else row.caught++;
      }
    }
  }
  return [...rows.values()].sort((a, b) => a.detector.localeCompare(b.detector));
}

export interface OverallSummary {
  sessions: number;
  loops: number;
  healthy: number;
  unlabelled: number;
  verdicts: Partial<Record<Verdict, number>>;
}

export function overall(sessions: readonly SessionStatsReport[]): OverallSummary {
  const verdicts: Partial<Record<Verdict, number>> = {};
  for (const s of sessions) verdicts[s.verdict] = (verdicts[s.verdict] ?? 0) + 1;
  const count = (g: Group) => sessions.filter((s) => groupOf(s) === g).length;
  return { sessions: sessions.length, loops: count("loop"), healthy: count("healthy"), unlabelled: count("unlabelled"), verdicts };
}
