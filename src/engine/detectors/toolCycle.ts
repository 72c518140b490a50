/**
 * g. A-B-A-B (and longer periods, up to `maxPeriod`) of calls that bring nothing new: every call
 * has the very same input as the call one period earlier (replacement text included) and that
 * earlier call returned exactly what the one before it did at that position. Adjacent-repeat
 * counts never see these because the calls alternate. An edit-test cycle whose edits or test
 * output change is debugging, not a cycle; so is a wait-and-poll cycle (a `sleep` in the period).
 */
import type { Detector, DetectorContext, DetectorDefinition, DetectorSettings, Finding } from "../detector";
import { describeCall, LEDGER_HISTORY, type CallRecord } from "../ledger";

/** The longest period looked for, whatever the setting. */
const MAX_PERIOD = 16;
/**
 * How far back a cycle is followed (calls): bounds the work per call. The scan compares each call
 * with the one a period before it, so it reads at most MAX_SCAN + MAX_PERIOD calls: what the ledger keeps.
 */
const MAX_SCAN = LEDGER_HISTORY - MAX_PERIOD;

/** Counts are occurrences of the cycle, the one the current call completes included. */
export const TOOL_CYCLE_DEFAULTS: DetectorSettings = { enabled: true, warnAt: 3, blockAt: 4, stopAt: 6, maxPeriod: 5 };

/** Whether `later` repeats `earlier` with nothing new: same input, and (once answered) same outcome. */
function repeats(later: CallRecord, earlier: CallRecord): boolean {
  if (later.inputHash !== earlier.inputHash || !earlier.result) return false;
  if (!later.result) return true; // the call being made now: judged on its input
  return later.result.ok === earlier.result.ok && later.result.outputHash === earlier.result.outputHash;
}

export interface CycleMatch {
  period: number;
  /** Occurrences of the cycle (2 = seen twice). */
  count: number;
  /** The calls of one period, oldest first. */
  calls: CallRecord[];
  /** Calls that take part in the repetition, oldest first. */
  span: CallRecord[];
}

/** The shortest cycle of period 2..maxPeriod that the latest call continues, if any. */
export function findCycle(recent: readonly CallRecord[], maxPeriod: number): CycleMatch | undefined {
  const n = recent.length;
  for (let p = 2; p <= maxPeriod && 2 * p <= n; p++) {
    // The run below starts with the latest call repeating the one a period before it; when it does
    // not, the run is 0 < p and this period is skipped whatever the other tests say: test it first.
    if (!repeats(recent[n - 1], recent[n - 1 - p])) continue;
    const period = recent.slice(n - p);
    if (new Set(period.map((c) => c.inputHash)).size < 2) continue; // one call repeated: tool-repeat's business
    if (period.some((c) => c.waits)) continue; // waiting and polling in turn
    let run = 0;
    for (let i = n - 1; i - p >= 0 && run < MAX_SCAN; i--) {
      if (!repeats(recent[i], recent[i - p])) break;
      run++;
    }
    if (run < p) continue;
    return { period: p, count: Math.floor(run / p) + 1, calls: period, span: recent.slice(n - run - p) };
  }
  return undefined;
}

/** A key that stays the same whichever call of the cycle comes first. */
function cycleKey(calls: CallRecord[]): string {
  const sigs = calls.map((c) => c.inputHash);
  let best = sigs;
  for (let r = 1; r < sigs.length; r++) {
    const rot = [...sigs.slice(r), ...sigs.slice(0, r)];
    if (rot.join("|") < best.join("|")) best = rot;
  }
  return best.join("|");
}

class ToolCycleDetector implements Detector {
  readonly id = "tool-cycle" as const;
  private strongest = { count: 0, detail: "" };

  constructor(private readonly settings: DetectorSettings) {}

  onToolCall(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    const maxPeriod = Math.max(2, Math.min(MAX_PERIOD, Number(this.settings.maxPeriod) || 5));
    const m = findCycle(ctx.ledger.recent, maxPeriod);
    if (!m) return;
    const cycle = m.calls.map((c) => describeCall(c, 50));
    if (m.count > this.strongest.count) this.strongest = { count: m.count, detail: cycle.join(" → ") };
    return [{
      detector: this.id,
      key: `${this.id}:${cycleKey(m.calls)}`,
      count: m.count,
      tool: call.name,
      toolCallId: call.id,
      summary: `The same ${m.period} calls are going round in a cycle (${cycle.join(" → ")}), ${m.count} times, with the same results each time`,
      suggestion: "Going round again will give the same results: step back, read the error or output once more, and change the approach (a different edit, a different command).",
      evidence: { events: m.span.map((c) => c.eventIndex).slice(-24), count: m.count, cycle, tool: call.name, identicalOutput: true },
    }];
  }

  reset(): void {
    this.strongest = { count: 0, detail: "" };
  }

  status() {
    const warnAt = this.settings.warnAt || 1;
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.count / warnAt), detail: this.strongest.detail ? `${this.strongest.detail} ${this.strongest.count}/${warnAt}` : "" };
  }
}

export const toolCycle: DetectorDefinition = {
  id: "tool-cycle",
  title: "Tool-call cycle",
  description: "A-B-A-B (or longer) rounds of the same calls with the same results.",
  channel: "tool",
  defaults: TOOL_CYCLE_DEFAULTS,
  create: (settings) => new ToolCycleDetector(settings),
  shortTitle: "Tool-call cycles",
  strength: {
    unit: "rounds",
    meaning: "rounds of the same few calls in the same order (A, B, A, B...) with the same inputs and results; the round the current call completes counts too. A changed input or result ends the cycle.",
  },
  parameters: {
    maxPeriod: {
      description: "Longest cycle looked for, in calls per round. Example: `5` (the default) finds A-B, A-B-C up to five different calls per round; `2` finds only A-B-A-B.",
      tuning: true,
    },
  },
};
