/**
 * Threshold sweeps: the same sessions replayed under each value of one setting, tallied by
 * verdict, so that a user sees where catches stop and false alarms start.
 */
import type { Verdict } from "./sessionStats";
import { quoted } from "../engine/printable";

export interface SweepRow {
  value: string;
  verdicts: Partial<Record<Verdict, number>>;
  /** Interventions over all sessions at this value. */
  interventions: number;
}

export interface Sweep {
  key: string;
  rows: SweepRow[];
}

/** "warnAt=2,3,5" or "warnAt=2..6" → key and the values to try. */
export function parseSweep(spec: string): { key: string; values: string[] } {
  const eq = spec.indexOf("=");
  if (eq <= 0 || eq === spec.length - 1) throw new Error(`expected key=v1,v2,... or key=from..to, got ${quoted(spec)}`);
  const key = spec.slice(0, eq);
  const rest = spec.slice(eq + 1);
  const range = /^(\d+)\.\.(\d+)$/.exec(rest);
  if (range) {
    const from = Number(range[1]), to = Number(range[2]);
    if (to < from || to - from > 100) throw new Error(`range ${rest} must go upwards and hold at most 101 values`);
    return { key, values: Array.from({ length: to - from + 1 }, (_, i) => String(from + i)) };
  }
  return { key, values: rest.split(",").map((v) => v.trim()).filter((v) => v !== "") };
}

/** One session under each swept value: its verdict and how many interventions. */
export type SessionSweep = Array<{ verdict: Verdict; interventions: number }>;

/** Tallies sessions' replays under each value (in session order) into the sweep's rows. */
export function tallySweep(key: string, values: readonly string[], sessions: readonly SessionSweep[]): Sweep {
  const rows = values.map((value, v) => {
    const verdicts: Partial<Record<Verdict, number>> = {};
    let interventions = 0;
    for (const s of sessions) {
      interventions += s[v].interventions;
      verdicts[s[v].verdict] = (verdicts[s[v].verdict] ?? 0) + 1;
    }
    return { value, verdicts, interventions };
  });
  return { key, rows };
}

const COLUMNS: readonly Verdict[] = ["caught", "early", "late", "missed", "false alarm", "quiet", "fired", "nothing fired"];

/** The verdict columns any row uses, in a fixed order. */
export function sweepColumns(s: Sweep): Verdict[] {
  return COLUMNS.filter((c) => s.rows.some((r) => (r.verdicts[c] ?? 0) > 0));
}

export function sweepText(s: Sweep): string[] {
  const cols = sweepColumns(s);
  const width = Math.max(5, ...s.rows.map((r) => r.value.length));
  const lines = [`== sweep ${s.key} (other settings as given) ==`];
  lines.push(`  ${"value".padEnd(width)}  ${cols.map((c) => c.padStart(12)).join("")}  interventions`);
  for (const r of s.rows) lines.push(`  ${r.value.padEnd(width)}  ${cols.map((c) => String(r.verdicts[c] ?? 0).padStart(12)).join("")}  ${String(r.interventions).padStart(13)}`);
  return lines;
}
