/**
 * j. An edit retried on the same target that keeps failing: same file and same search text (the
 * replacement may change every time, which is why exact-input repeat counts never see it). Counts
 * failed attempts per edit signature within a progress epoch: once any edit lands, the file may
 * have changed and the old target may now exist. Fires at the call, so a block can refuse it.
 */
import type { Detector, DetectorContext, DetectorDefinition, DetectorSettings, Finding } from "../detector";
import type { CallRecord } from "../ledger";
import { BoundedMap } from "../boundedMap";
import { errorLine } from "../signatures";

const MAX_TRACKED_EDITS = 512;
const MAX_EVIDENCE = 16;

/** Counts are attempts, the one being made included: warn on the 3rd try after 2 failures. */
export const EDIT_RETRY_DEFAULTS: DetectorSettings = { enabled: true, warnAt: 3, blockAt: 4, stopAt: 6 };

interface Attempts {
  epoch: number;
  failures: number;
  /** Request of the latest failure counted. */
  lastRequest: number;
  /** Distinct replacements tried (by whole-input hash), to say so in the summary. */
  variants: Set<string>;
  lastError: string;
  events: number[];
}

class EditRetryDetector implements Detector {
  readonly id = "edit-retry" as const;
  private edits = new BoundedMap<string, Attempts>(MAX_TRACKED_EDITS);
  private strongest = { count: 0, detail: "" };
  /** The status shows the strongest retry since the last progress (epoch). */
  private statusEpoch = -1;

  constructor(private readonly settings: DetectorSettings) {}

  onToolCall(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    if (ctx.epoch !== this.statusEpoch) { this.statusEpoch = ctx.epoch; this.strongest = { count: 0, detail: "" }; }
    if (call.kind !== "edit") return;
    const a = this.edits.peek(call.signature);
    if (!a || a.epoch !== ctx.epoch || a.failures === 0) return;
    const count = a.failures + 1;
    if (count > this.strongest.count) this.strongest = { count, detail: `${call.name} ${call.target ?? ""}`.trim() };
    if (count < 2) return;
    const where = call.target ?? "the same file";
    const varied = a.variants.size > 1 ? ` with ${a.variants.size} different replacements` : "";
    return [{
      detector: this.id,
      key: `${this.id}:${call.signature}`,
      count,
      tool: call.name,
      toolCallId: call.id,
      summary: `Edit of ${where} attempted ${count} times on the same search text${varied}; it failed every time ("${a.lastError}")`,
      suggestion: "The text you are searching for is not in the file as written: read the current content of that part of the file and copy the search text from it exactly, or rewrite the file.",
      evidence: { events: [...a.events, call.eventIndex], count, tool: call.name, path: call.target },
    }];
  }

  onToolResult(call: CallRecord, ctx: DetectorContext): void {
    if (call.kind !== "edit" || !call.result) return;
    if (call.result.ok) { this.edits.delete(call.signature); return; }
    let a = this.edits.get(call.signature);
    if (!a || a.epoch !== ctx.epoch) {
      a = { epoch: ctx.epoch, failures: 0, lastRequest: -1, variants: new Set(), lastError: "", events: [] };
      this.edits.set(call.signature, a);
    }
    // Edits of one batch failing together are one attempt: they were all written before any error came back.
    if (a.lastRequest !== call.requestIndex) a.failures++;
    a.lastRequest = call.requestIndex;
    if (a.variants.size < 32) a.variants.add(call.inputHash);
    const line = errorLine(call.result.text);
    a.lastError = line.length > 100 ? line.slice(0, 99) + "…" : line;
    a.events.push(call.eventIndex);
    if (a.events.length > MAX_EVIDENCE) a.events.shift();
  }

  reset(): void {
    this.edits.clear();
    this.strongest = { count: 0, detail: "" };
  }

  status() {
    const warnAt = this.settings.warnAt || 1;
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.count / warnAt), detail: this.strongest.detail ? `${this.strongest.detail} ${this.strongest.count}/${warnAt}` : "" };
  }
}

export const editRetry: DetectorDefinition = {
  id: "edit-retry",
  title: "Failing edit retried",
  description: "An edit of the same file and the same search text that fails again and again, whatever the replacement.",
  channel: "tool",
  defaults: EDIT_RETRY_DEFAULTS,
  create: (settings) => new EditRetryDetector(settings),
};
