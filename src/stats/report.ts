/** The stats report as one object (the --json output) and as plain text. */
import { detectorOutcomes, distributions, GROUPS, overall, type DetectorOutcome, type MetricDistribution, type OverallSummary, type Separation } from "./distributions";
import type { SessionStatsReport } from "./sessionStats";
import { sweepText, type Sweep } from "./sweep";

export interface StatsReport {
  /** The --set overrides the figures were computed under (empty: the settings as loaded). */
  overrides: string[];
  overall: OverallSummary;
  sessions: SessionStatsReport[];
  distributions: MetricDistribution[];
  detectors: DetectorOutcome[];
  /** With --sweep: verdict tallies per value of one setting. */
  sweep?: Sweep;
}

export function buildReport(sessions: SessionStatsReport[], overrides: string[], sweep?: Sweep): StatsReport {
  return { overrides, overall: overall(sessions), sessions, distributions: distributions(sessions), detectors: detectorOutcomes(sessions), ...(sweep ? { sweep } : {}) };
}

const TOP_GROUPS = 5;

function labelText(s: SessionStatsReport): string {
  if (!s.label) return "unlabelled";
  if (!s.label.loop) return "label: healthy";
  const window = typeof s.label.onset === "number" ? `, onset ${s.label.onset}${typeof s.label.deadline === "number" ? `, deadline ${s.label.deadline}` : ""}` : "";
  return `label: loop (${s.label.kind ?? "?"}${window})`;
}

export function sessionText(s: SessionStatsReport): string[] {
  const lines = [`${s.file}  (${s.format}; ${s.events} events, ${s.requests} requests, ${s.toolCalls} tool calls, ${s.distinctCalls} distinct; ${labelText(s)})`];
  const top = s.groups.filter((g) => g.count >= 2).slice(0, TOP_GROUPS);
  if (top.length > 0) {
    lines.push("  repeated calls (tool, input hash, outcome):");
    for (const g of top) lines.push(`    ${String(g.count).padStart(4)}×  ${g.call}  [${g.inputHash}]  → ${g.outcome}`);
  } else if (s.toolCalls > 0) lines.push("  no call was made twice with the same input and outcome");
  if (s.longestRun) {
    const same = s.longestRun.identicalOutput === undefined ? "outputs not all known" : s.longestRun.identicalOutput ? "identical output every time" : "output changed";
    lines.push(`  longest run: ${s.longestRun.length}× ${s.longestRun.call} from event ${s.longestRun.startEvent} (${same})`);
  }
  if (s.repeated.calls > 0) {
    lines.push(`  calls made more than once: ${s.repeated.calls}; always the same output: ${s.repeated.identicalOutput}; output differed: ${s.repeated.differentOutput}`);
  }
  const m = s.metrics;
  lines.push(`  figures: same call ${m.sameCall}, same call+output ${m.sameCallSameOutput}, same call w/o progress ${m.sameCallNoProgress}, run ${m.longestRun}, same error ${m.sameError}, file re-reads ${m.sameFileReads}, stream line copies ${m.streamLineRepeat}, distinct ${m.distinctCallPct}%`);
  if (s.interventions.length === 0) lines.push("  nothing fired");
  for (const iv of s.interventions) lines.push(`  event ${String(iv.event).padStart(5)}  ${iv.action.toUpperCase().padEnd(5)}  ${iv.detector}: ${iv.summary}`);
  lines.push(`  verdict: ${s.verdict}`);
  return lines;
}

function bar(n: number): string {
  return n === 0 ? "·" : "█".repeat(Math.min(n, 30)) + (n > 30 ? "…" : "") + ` ${n}`;
}

/** One line on where the groups split, for text and HTML. */
function rangeText(sep: Separation, cmp: string): string {
  return sep.from === sep.to ? `${cmp} ${sep.to}` : `${cmp} any of ${Math.min(sep.from, sep.to)}…${Math.max(sep.from, sep.to)}`;
}

/** One line on where the groups split, for text and HTML. */
export function separationText(d: MetricDistribution): string {
  const sep = d.separation;
  if (!sep) return "needs both loop and healthy labelled sessions";
  const cmp = d.loopsAre === "high" ? "≥" : "≤";
  const all = d.loopsAre === "high" && sep.allLoops.threshold <= 0
    ? "some loops score 0 on this figure"
    : `flagging every loop (${cmp} ${sep.allLoops.threshold}) also flags ${sep.allLoops.healthyFlagged}/${sep.healthy} healthy`;
  if (sep.useless) return `does not separate: ${all}`;
  const best = `best at ${rangeText(sep, cmp)}: ${sep.loopsFlagged}/${sep.loops} loops, ${sep.healthyFlagged}/${sep.healthy} healthy flagged`;
  return sep.clean ? `${best} — separates cleanly` : `${best}; ${all}`;
}

/** Per loop kind, the kinds this figure catches: "tool_repeat_success ≥ 3 (3/3 loops, 0/13 healthy)". */
export function kindSeparationText(d: MetricDistribution): string | undefined {
  const cmp = d.loopsAre === "high" ? "≥" : "≤";
  const useful = Object.entries(d.byKind).filter(([, s]) => !s.useless);
  if (useful.length === 0 || Object.keys(d.byKind).length < 2) return undefined;
  return useful.map(([kind, s]) => `${kind} ${rangeText(s, cmp)} (${s.loopsFlagged}/${s.loops} loops, ${s.healthyFlagged}/${s.healthy} healthy${s.clean ? ", clean" : ""})`).join("; ");
}

export function distributionText(d: MetricDistribution, present: readonly string[]): string[] {
  const lines = [`${d.metric} — ${d.title}`];
  const width = Math.max(6, ...d.buckets.map((b) => b.label.length));
  lines.push(`  ${"value".padEnd(width)}  ${present.map((g) => g.padEnd(22)).join("")}`.trimEnd());
  for (const b of d.buckets) {
    lines.push(`  ${b.label.padEnd(width)}  ${present.map((g) => bar(b.counts[g as keyof typeof b.counts]).padEnd(22)).join("")}`.trimEnd());
  }
  for (const g of present) {
    const s = d.summary[g as keyof typeof d.summary];
    if (s) lines.push(`  ${g}: n=${s.n} min ${s.min}, median ${s.median}, p90 ${s.p90}, max ${s.max}`);
  }
  lines.push(`  separation: ${separationText(d)}`);
  const kinds = kindSeparationText(d);
  if (kinds) lines.push(`  by loop kind: ${kinds}`);
  return lines;
}

export function reportText(r: StatsReport, perSession: boolean): string {
  const out: string[] = [];
  if (perSession) {
    for (const s of r.sessions) out.push(...sessionText(s), "");
  }
  const o = r.overall;
  const present = GROUPS.filter((g) => (g === "loop" ? o.loops : g === "healthy" ? o.healthy : o.unlabelled) > 0);
  out.push(`== distributions over ${o.sessions} session(s): ${o.loops} loop, ${o.healthy} healthy, ${o.unlabelled} unlabelled ==`);
  for (const d of r.distributions) out.push(...distributionText(d, present), "");
  out.push(`== detectors under ${r.overrides.length ? `--set ${r.overrides.join(" --set ")}` : "the current settings"} ==`);
  if (r.detectors.length === 0) out.push("  no detector fired on any session");
  for (const d of r.detectors) {
    const firsts = [...d.firstEvents].sort((a, b) => a - b);
    out.push(`  ${d.detector.padEnd(16)} fired in ${d.fired.loop} loop (caught ${d.caught}, early ${d.early}, late ${d.late}), ${d.fired.healthy} healthy (false alarms), ${d.fired.unlabelled} unlabelled; first at event ${firsts[0]}…${firsts[firsts.length - 1]}`);
  }
  if (r.sweep) out.push("", ...sweepText(r.sweep));
  const v = o.verdicts;
  const parts = Object.entries(v).map(([k, n]) => `${k} ${n}`);
  out.push("", `verdicts: ${parts.join(", ")}`);
  return out.join("\n");
}
