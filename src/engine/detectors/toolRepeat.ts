/**
 * f. Identical successful calls that bring nothing new: same signature, same output, no write,
 * edit or mutating command in between. Polling whose output changes is progress; so is a
 * re-run after an edit (the epoch changes). Failures are counted apart by tool-failure.
 */
import type { Detector, DetectorDefinition, DetectorSettings, Finding } from "../detector";
import { describeCall, type CallRecord } from "../ledger";
import { BoundedMap } from "../boundedMap";

/** Signatures remembered at once; the least recently used are forgotten first. */
const MAX_TRACKED_SIGNATURES = 2048;

interface Streak {
  epoch: number;
  /** Output of the latest answered call in the streak. */
  lastHash?: string;
  /** Answered calls in a row with identical output. */
  identical: number;
  /** Calls made but not yet answered (a parallel batch, or a host that reports no results). */
  unanswered: number;
  events: number[];
}

export const TOOL_REPEAT_DEFAULTS: DetectorSettings = { enabled: true, warnAt: 3, blockAt: 5, stopAt: 7 };

export function suggestionForKind(kind: CallRecord["kind"]): string {
  switch (kind) {
    case "read": return "The file has not changed since you read it: use what you already have, or read a different part.";
    case "search": case "list": return "The result will not change: use it, or search for something else.";
    case "command": return "Running it again will give the same output: change something first, or try a different command.";
    case "fetch": return "Fetching it again returns the same thing: use that result or look elsewhere.";
    default: return "Repeating it will not change the result: try a different approach.";
  }
}

class ToolRepeatDetector implements Detector {
  readonly id = "tool-repeat" as const;
  private streaks = new BoundedMap<string, Streak>(MAX_TRACKED_SIGNATURES);
  private strongest: { count: number; detail: string } = { count: 0, detail: "" };

  constructor(private readonly settings: DetectorSettings) {}

  onToolCall(call: CallRecord): Finding[] | void {
    let s = this.streaks.get(call.signature);
    if (!s || s.epoch !== call.epoch) {
      s = { epoch: call.epoch, identical: 0, unanswered: 0, events: [] };
      this.streaks.set(call.signature, s);
    }
    s.unanswered++;
    s.events.push(call.eventIndex);
    if (s.events.length > 16) s.events.shift();
    const count = s.identical + s.unanswered;
    if (count > this.strongest.count) this.strongest = { count, detail: describeCall(call) };
    if (count < 2) return;
    const outputs = s.identical > 1 ? " and identical output" : "";
    return [{
      detector: this.id,
      key: `${this.id}:${call.signature}`,
      count,
      tool: call.name,
      toolCallId: call.id,
      summary: `${describeCall(call)} called ${count} times with identical input${outputs}, nothing changed in between`,
      suggestion: suggestionForKind(call.kind),
      evidence: { events: [...s.events], count, tool: call.name, path: call.kind === "read" ? call.target : undefined, command: call.kind === "command" ? call.target : undefined, identicalOutput: s.identical > 1 },
    }];
  }

  onToolResult(call: CallRecord): void {
    const s = this.streaks.get(call.signature);
    if (!s || !call.result) return;
    if (s.unanswered > 0) s.unanswered--;
    if (!call.result.ok) {
      // A failure is not a repeat of a success: tool-failure counts it.
      s.identical = 0;
      s.lastHash = undefined;
      return;
    }
    if (s.lastHash === undefined || s.lastHash === call.result.outputHash) s.identical++;
    else { s.identical = 1; s.events = [call.eventIndex]; } // output changed: polling, progress
    s.lastHash = call.result.outputHash;
  }

  reset(): void {
    this.streaks.clear();
    this.strongest = { count: 0, detail: "" };
  }

  status() {
    const warnAt = this.settings.warnAt || 1;
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.count / warnAt), detail: this.strongest.detail ? `${this.strongest.detail} ${this.strongest.count}/${warnAt}` : "" };
  }
}

export const toolRepeat: DetectorDefinition = {
  id: "tool-repeat",
  title: "Identical tool calls",
  description: "The same call with the same input and the same output, with no change in between.",
  channel: "tool",
  defaults: TOOL_REPEAT_DEFAULTS,
  create: (settings) => new ToolRepeatDetector(settings),
};
