/**
 * f. The same failure again and again: same tool (and, for shells, the same program) failing with
 * the same normalised error, even when the inputs vary (a 404 URL fetched with a new query string
 * each time). Counted per tool scope within a progress epoch; a success of that scope or a write,
 * edit or mutating command starts over. Findings come after each counted failure and, so that a
 * block can refuse it, at the next call of that scope.
 */
import type { Detector, DetectorContext, DetectorDefinition, DetectorSettings, Finding } from "../detector";
import { describeCall, type CallRecord } from "../ledger";
import { BoundedMap } from "../boundedMap";
import { shellWords } from "../shellCommands";
import { errorLine, exactInputKey, textSimilarity } from "../signatures";

/** Tool scopes remembered at once. */
const MAX_SCOPES = 512;
/** Distinct failure fingerprints remembered per scope. */
const MAX_FINGERPRINTS = 8;
const MAX_EVIDENCE = 16;
/** How much of a call's input the similarity test looks at (and keeps). */
const SIMILARITY_CHARS = 400;

/**
 * minSimilarity: how alike (0..1, see textSimilarity) a failing call's input must be to the previous
 * failure with that error to continue its streak: a URL with a new query string does, a different
 * script that happens to hit the same missing module does not.
 */
export const TOOL_FAILURE_DEFAULTS: DetectorSettings = { enabled: true, warnAt: 3, blockAt: 4, stopAt: 5, minSimilarity: 0.5 };

interface FailureCount {
  count: number;
  /** What the latest failing call asked for, to compare the next one with. */
  lastInput: string;
  /** Error text of the latest failure, cut, for the summary. */
  sample: string;
  events: number[];
}

interface ScopeState {
  epoch: number;
  /** The session's wait count at the scope's latest failure: a wait since then makes a failure a poll. */
  waitCount: number;
  byFingerprint: Map<string, FailureCount>;
  /** Fingerprint of the scope's latest failure; undefined after a success. */
  last?: string;
}

/**
 * What a failure repeats within: the tool, and for shell tools the program run (`python`, `npm`,
 * `gh pr`), so that a failing `grep` and a failing `pytest` are not one streak.
 */
export function failureScope(call: CallRecord): string {
  if (call.kind !== "command" || call.target === undefined) return call.name;
  const words = shellWords(call.target.replace(/^(?:cd\s+\S+\s*&&\s*)+/, "")).filter((w) => !/^\w+=/.test(w));
  let program = (words[0] ?? "").replace(/^.*[\\/]/, "");
  if (/^(npx|npm|pnpm|yarn|bunx?|gh|git|uv|poetry|cargo|go|docker|kubectl)$/.test(program) && words[1]) program += ` ${words[1]}`;
  if (/^python[\d.]*$/.test(program) && words[1] === "-m" && words[2]) program += ` -m ${words[2]}`;
  return `${call.name} ${program}`;
}

class ToolFailureDetector implements Detector {
  readonly id = "tool-failure" as const;
  private scopes = new BoundedMap<string, ScopeState>(MAX_SCOPES);
  private strongest = { count: 0, detail: "" };
  /** The status shows the strongest streak since the last progress (epoch). */
  private statusEpoch = -1;

  constructor(private readonly settings: DetectorSettings) {}

  private state(scope: string, epoch: number): ScopeState {
    let s = this.scopes.get(scope);
    if (!s || s.epoch !== epoch) {
      s = { epoch, waitCount: -1, byFingerprint: new Map() };
      this.scopes.set(scope, s);
    }
    return s;
  }

  private finding(call: CallRecord, scope: string, fingerprint: string, f: FailureCount, atCall: boolean): Finding {
    return {
      detector: this.id,
      key: `${this.id}:${scope}\u0001${fingerprint}`,
      count: f.count,
      tool: call.name,
      toolCallId: atCall ? call.id : undefined,
      summary: `${scope} failed ${f.count} times with the same error ("${f.sample}")${atCall ? `, and is being called again: ${describeCall(call, 60)}` : ""}`,
      suggestion: "Stop retrying variations of the same call: read the error, check the assumption behind it (path, URL, name, syntax), or take another route.",
      evidence: { events: [...f.events], count: f.count, tool: call.name, command: call.kind === "command" ? call.target : undefined, path: call.kind === "command" ? undefined : call.target },
    };
  }

  onToolCall(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    if (ctx.epoch !== this.statusEpoch) { this.statusEpoch = ctx.epoch; this.strongest = { count: 0, detail: "" }; }
    const scope = failureScope(call);
    const s = this.scopes.peek(scope);
    if (!s || s.epoch !== ctx.epoch || s.last === undefined) return;
    const f = s.byFingerprint.get(s.last);
    if (!f || f.count < 2) return;
    // Only a retry of the failing call is refused; something unrelated through the same tool goes ahead.
    if (textSimilarity(f.lastInput, inputText(call), SIMILARITY_CHARS) < Number(this.settings.minSimilarity)) return;
    return [this.finding(call, scope, s.last, f, true)];
  }

  onToolResult(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    const result = call.result;
    if (!result) return;
    const scope = failureScope(call);
    if (result.ok) {
      // The tool works for this scope again: earlier failures were not one stuck streak.
      const s = this.scopes.peek(scope);
      if (s) { s.byFingerprint.clear(); s.last = undefined; }
      return;
    }
    const fingerprint = result.errorFingerprint ?? "";
    // A failure that says nothing (an empty failing grep) cannot be told apart from any other.
    if (fingerprint === "") return;
    // Failures do not move the epoch, but the call may have been made before an edit landed.
    const s = this.state(scope, Math.max(call.epoch, ctx.epoch));
    // A failing poll ("rollout not finished", after `sleep 20`) means "not yet", not a stuck retry.
    const polled = call.waits || (s.waitCount >= 0 && call.waitCount !== s.waitCount);
    s.waitCount = call.waitCount;
    if (polled) return;
    const input = inputText(call);
    let f = s.byFingerprint.get(fingerprint);
    if (f && textSimilarity(f.lastInput, input, SIMILARITY_CHARS) < Number(this.settings.minSimilarity)) {
      // Same error, unrelated call: a new attempt at something else, not a retry.
      s.byFingerprint.delete(fingerprint);
      f = undefined;
    }
    if (!f) {
      f = { count: 0, lastInput: "", sample: "", events: [] };
      s.byFingerprint.set(fingerprint, f);
      if (s.byFingerprint.size > MAX_FINGERPRINTS) s.byFingerprint.delete(s.byFingerprint.keys().next().value as string);
    }
    f.count++;
    f.lastInput = input.slice(0, SIMILARITY_CHARS);
    f.sample = firstLineOf(result.text);
    f.events.push(call.eventIndex, result.eventIndex);
    if (f.events.length > MAX_EVIDENCE) f.events.splice(0, f.events.length - MAX_EVIDENCE);
    s.last = fingerprint;
    if (f.count > this.strongest.count) this.strongest = { count: f.count, detail: `${scope} ${f.count}` };
    if (f.count < 2) return;
    return [this.finding(call, scope, fingerprint, f, false)];
  }

  reset(): void {
    this.scopes.clear();
    this.strongest = { count: 0, detail: "" };
  }

  status() {
    const warnAt = this.settings.warnAt || 1;
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.count / warnAt), detail: this.strongest.detail ? `${this.strongest.detail}/${warnAt}` : "" };
  }
}

/** The text a call's similarity is judged on: its target (command, URL, path) or its whole input. */
function inputText(call: CallRecord): string {
  if (call.target === undefined) return exactInputKey(call.name, call.input);
  return call.kind === "command" ? call.target.replace(/^(?:cd\s+\S+\s*&&\s*)+/, "") : call.target;
}

function firstLineOf(text: string): string {
  const line = errorLine(text);
  return line.length > 100 ? line.slice(0, 99) + "…" : line;
}

export const toolFailure: DetectorDefinition = {
  id: "tool-failure",
  title: "Repeated tool failures",
  description: "The same tool failing with the same error again and again, even when the input varies a little.",
  channel: "tool",
  defaults: TOOL_FAILURE_DEFAULTS,
  create: (settings) => new ToolFailureDetector(settings),
};
