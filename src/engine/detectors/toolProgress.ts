/**
 * k. Steps that bring nothing new, whatever the tool, the wording or the dialect. The exact detectors
 * each know one shape (the same call, the same failure, one pattern widening, A-B-A-B); this one
 * measures progress itself and so sees the loops nobody described: probes that differ every time
 * (`pwd`, `echo plan`, `cd .`, listing an empty folder), reworded searches that all find nothing, a
 * paging sweep that wraps round to windows already read.
 *
 * A step is one request's tool calls (a parallel batch is one step). It made progress when one of
 * its calls
 * - changed the workspace (a write, edit or mutating command that the ledger counts as a change), or
 * - answered something the session had not seen: an output never seen before from any call
 *   (per-run noise such as times and durations masked). An empty answer, "no matches", or the echo
 *   of the call's own words (`echo ok` → ok) is nothing new; nor is the answer of a no-op program
 *   (`pwd`, `echo`, `true`).
 * Waits, plan updates (`update_plan`, TodoWrite) and runs the user asked for ("re-run it a few
 * times") neither count nor break a run. `minSteps` steps in a row without progress are a loop; the finding comes at the next
 * call, so that a block can refuse it.
 *
 * Second measure: edits that change nothing about the outcome. A command that failed, run again
 * after the workspace changed, failing with the very same output (per-run noise masked): the edit in
 * between did nothing to it. `ineffectiveEdits` such edits in a row reach the warning.
 */
import type { Detector, DetectorContext, DetectorDefinition, DetectorSettings, Finding } from "../detector";
import { describeCall, type CallRecord } from "../ledger";
import { BoundedMap } from "../boundedMap";
import { isPlanTool } from "../toolKnowledge";
import { commandExitedNonZero, errorLine, ownCopy, someContentLine } from "../signatures";
import { foundNothingIn } from "./searchSpiral";
import { CursorMemory } from "../news";
import { isFileEditCommand } from "../shellCommands";

/**
 * Counts are steps without progress, the one starting included: warn when a 5th step begins after
 * four that brought nothing new. `ineffectiveEdits`: edits in a row after which a failing command
 * failed the very same way; the third reaches warnAt.
 */
export const TOOL_PROGRESS_DEFAULTS: DetectorSettings = { enabled: true, warnAt: 5, blockAt: 8, stopAt: 12, ineffectiveEdits: 3 };

/** Answers (output hashes) remembered, to tell one seen before. */
const MAX_OUTPUTS = 2048;
/** How much of an answer is read for words of its own. */
const WORD_CHARS = 4000;
/** Commands whose latest failure is remembered, to tell an edit that changed nothing about it. */
const MAX_COMMANDS = 256;
const MAX_EVIDENCE = 16;
/** A run that reports a failure in its output by a count of failures ("3 failed", "1 error")... */
const FAILURE_COUNT = /(?<![\w.])[1-9]\d* (?:failed|failing|failures?|errors?)\b/;
/** ...or by a FAIL banner, a traceback, a panic, a thrown error: each of these shapes holds one of FAILURE_WORDS. */
const FAILURE_BANNER = /(?<![\w.])(?:FAIL(?:ED)?\b|Traceback \(most recent|panicked|\w*Error:|\w+Exception\b)/;
const FAILURE_WORDS = ["FAIL", "Error:", "Exception", "panicked", "Traceback (most recent"];

/**
 * Whether a run's output reports a failure. The banner pattern runs only on text holding one of its
 * fixed words: it costs hundreds of instructions a character (its `\w*Error:` tries every word), a
 * search for a word a few.
 */
function reportsFailure(head: string): boolean {
  for (const word of FAILURE_WORDS) if (head.includes(word)) return FAILURE_BANNER.test(head) || FAILURE_COUNT.test(head);
  return FAILURE_COUNT.test(head);
}

/** How much of an output is searched for a failure. */
const FAILURE_CHARS = 4000;
/** Calls of the run described in the summary. */
const MAX_DESCRIBED = 4;

/** Words of two or more letters or digits; long digit runs and hex ids (timestamps, request ids) are per-run noise. */
const WORD = /[\p{L}\p{N}_]{2,}/gu;
const NOISE = /^(?:\d{7,}|[0-9a-f]{12,}|\d+_\d+)$/;

interface Step {
  request: number;
  /** Calls made in the step that count (not waits, not requested runs). */
  counted: number;
  /** Whether every counted call repeated an earlier call and got its earlier answer: the exact detectors' shape, weighed half here. */
  allRepeats: boolean;
  progress: boolean;
  events: number[];
  described: string[];
}

interface FailureMemory {
  outcome: string;
  /** The epoch of the latest run: a later run at a higher epoch had changes in between. */
  epoch: number;
  /** The detector's count of edits at the latest run: only the agent's own edits are judged (a `git bisect bad` in between moves the epoch too). */
  edits: number;
  /** Changes in a row after which the command failed the very same way. */
  ineffective: number;
  error: string;
  events: number[];
}

class ToolProgressDetector implements Detector {
  readonly id = "tool-progress" as const;
  private outputs = new BoundedMap<string, true>(MAX_OUTPUTS);
  /** Latest answer per call (its loosened signature), to tell a call repeated with the same answer. */
  private answers = new BoundedMap<string, string>(MAX_OUTPUTS);
  private failures = new BoundedMap<string, FailureMemory>(MAX_COMMANDS);
  private step: Step | undefined;
  /** Writes and edits that changed a file (the ledger moved its epoch for them). */
  private edits = 0;
  /** Steps in a row without progress, and what they were. */
  private run = 0;
  private runEvents: number[] = [];
  private runDescribed: string[] = [];
  private epochAtStep = -1;
  private strongest = { count: 0, detail: "" };
  /** Calls that page forward (page 2 after page 1): ground not yet covered. */
  private readonly cursors = new CursorMemory();
  private advancing: CallRecord | undefined;

  constructor(private readonly settings: DetectorSettings) {}

  onToolCall(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    if (this.cursors.advances(call.command ?? call.signature)) this.advancing = call;
    let found: Finding | undefined;
    if (!this.step || this.step.request !== call.requestIndex) {
      this.closeStep(ctx.epoch);
      this.step = { request: call.requestIndex, counted: 0, allRepeats: true, progress: false, events: [], described: [] };
      this.epochAtStep = ctx.epoch;
      if (this.run > 0 && !neutral(call)) found = this.stepFinding(call);
    }
    // The failing command run once more after yet another change: a block can refuse it.
    const fail = this.failures.peek(call.repeatKey);
    const editFinding = fail && ctx.epoch !== fail.epoch && this.edits !== fail.edits ? this.editFinding(call, fail, true) : undefined;
    const out = [found, editFinding].filter((f): f is Finding => f !== undefined);
    return out.length > 0 ? out : undefined;
  }

  onToolResult(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    const result = call.result;
    if (!result) return;
    const step = this.step;
    const before = this.answers.get(call.repeatKey);
    this.answers.set(call.repeatKey, result.outputHash);
    // A call answering otherwise than it did last time tells that what it looks at changed (a flaky
    // test passing, then failing), even when this answer was seen before.
    const news = this.isNews(call) || (before !== undefined && before !== result.outputHash && !call.noOp);
    // (a no-op program repeated among others, or an answer with nothing of its own such as `ls -d .`,
    // is no shape the exact detectors follow: it weighs in full)
    const repeat = before === result.outputHash && !call.noOp && hasOwnWords(result.text, call.command ?? call.target ?? "");
    if (step && step.request === call.requestIndex && !neutral(call)) {
      step.counted++;
      if (!repeat) step.allRepeats = false;
      if (news || ctx.epoch !== this.epochAtStep) step.progress = true;
      if (step.events.length < MAX_EVIDENCE) step.events.push(call.eventIndex);
      if (step.described.length < MAX_DESCRIBED) { const d = describeCall(call, 40); if (!step.described.includes(d)) step.described.push(d); }
    }
    // The agent's own edits, whether by an editor tool or a command that edits a file (`sed -i`,
    // SWE-agent's `edit 12:15`); a checkout or a bisect step moves the workspace without one.
    if (result.ok && call.mutating && !call.unchanging && (call.kind === "edit" || call.kind === "write" || (call.command !== undefined && isFileEditCommand(call.command)))) this.edits++;
    const edit = this.noteOutcome(call);
    return edit ? [edit] : undefined;
  }

  /** Whether the answer told the session something it had not seen. */
  private isNews(call: CallRecord): boolean {
    const result = call.result!;
    const seen = this.outputs.get(result.outputHash) !== undefined;
    this.outputs.set(result.outputHash, true);
    if (seen && this.advancing !== call) return false;
    if (call.noOp) return false;
    if ((call.search !== undefined || call.kind === "search" || call.kind === "list") && foundNothingIn(result)) return false;
    // A page further on answers about ground not yet covered, whatever its words (every full page: "100").
    if (this.advancing === call) return !isBlank(result.text) && !foundNothingIn(result);
    // An answer never seen, unless all it holds is the call's own words back (`echo ok` → ok, `ls -d .` → .).
    return hasOwnWords(result.text, call.command ?? call.target ?? "");
  }

  private closeStep(epoch: number): void {
    const step = this.step;
    if (!step) return;
    this.step = undefined;
    if (epoch !== this.epochAtStep) step.progress = true;
    // A step of waits and runs the user asked for is neither progress nor its absence.
    if (step.counted === 0 && !step.progress) return;
    if (step.progress) { this.run = 0; this.runEvents = []; this.runDescribed = []; return; }
    // Two exact repeats weigh one step: tool-repeat, tool-cycle and file-reread judge those, and sooner.
    this.run += step.allRepeats ? 0.5 : 1;
    for (const e of step.events) this.runEvents.push(e);
    if (this.runEvents.length > MAX_EVIDENCE) this.runEvents.splice(0, this.runEvents.length - MAX_EVIDENCE);
    for (const d of step.described) if (!this.runDescribed.includes(d)) this.runDescribed.push(d);
    if (this.runDescribed.length > MAX_DESCRIBED) this.runDescribed.splice(0, this.runDescribed.length - MAX_DESCRIBED);
  }

  private stepFinding(call: CallRecord): Finding | undefined {
    const count = Math.floor(this.run) + 1;
    if (count > this.strongest.count) this.strongest = { count, detail: `${Math.floor(this.run)} steps, nothing new` };
    if (count < 2) return undefined;
    return {
      detector: this.id,
      key: `${this.id}:steps`,
      count,
      tool: call.name,
      toolCallId: call.id,
      summary: `${Math.floor(this.run)} steps in a row, nothing new: ${this.runDescribed.join(", ")} answered nothing the session had not already seen, and another step begins (${describeCall(call, 40)})`,
      suggestion: "These calls are not moving the task forward. Stop probing: use what you already have to take the next real step, try a different approach, or ask the user.",
      evidence: { events: [...this.runEvents, call.eventIndex], count, tool: call.name },
    };
  }

  /** Follows a failing command across changes: the same failure after a change is a change that did nothing to it. */
  private noteOutcome(call: CallRecord): Finding | undefined {
    if (call.kind !== "command" || call.mutating || call.requested > 1) return undefined;
    const result = call.result!;
    // Hosts report a failing test run as a success whose output says so ("1 failing", "--- FAIL").
    const failed = !result.ok || commandExitedNonZero(result.text) || reportsFailure(result.text.slice(0, FAILURE_CHARS));
    if (!failed) { this.failures.delete(call.repeatKey); return undefined; }
    const outcome = result.outputHash;
    let f = this.failures.get(call.repeatKey);
    if (!f || f.outcome !== outcome) {
      f = { outcome, epoch: call.epoch, edits: this.edits, ineffective: 0, error: "", events: [call.eventIndex] };
      this.failures.set(call.repeatKey, f);
      return undefined;
    }
    if (call.epoch === f.epoch) return undefined; // run again with nothing changed: tool-failure's business
    const edited = this.edits !== f.edits;
    f.epoch = call.epoch;
    f.edits = this.edits;
    // Changed by something other than an edit (a checkout, `git bisect bad`): the same answer there is a finding, not a miss.
    if (!edited) return undefined;
    f.ineffective++;
    const line = errorLine(result.text);
    f.error = ownCopy(line.length > 80 ? line.slice(0, 79) + "…" : line);
    f.events.push(call.eventIndex);
    if (f.events.length > MAX_EVIDENCE) f.events.shift();
    return this.editFinding(call, f, false);
  }

  private editFinding(call: CallRecord, f: FailureMemory, atCall: boolean): Finding | undefined {
    const at = Math.max(1, Number(this.settings.ineffectiveEdits) || 3);
    // On the ladder's scale: `ineffectiveEdits` such changes reach warnAt.
    if (f.ineffective < at) return undefined;
    const count = f.ineffective + (atCall ? 1 : 0) - at + (Number(this.settings.warnAt) || 1);
    if (count > this.strongest.count) this.strongest = { count, detail: `${describeCall(call, 40)} same failure after ${f.ineffective} changes` };
    return {
      detector: this.id,
      key: `${this.id}:edits\u0001${call.repeatKey}`,
      count,
      tool: call.name,
      toolCallId: atCall ? call.id : undefined,
      summary: `${f.ineffective} changes in a row, nothing new: after each, ${describeCall(call, 60)} failed with the very same output ("${f.error}")`,
      suggestion: "Your edits are not reaching this failure. Read the failing output once more and find where it really comes from (another file, a stale build, the test itself) before editing again.",
      evidence: { events: [...f.events], count: f.ineffective, tool: call.name, command: call.command },
    };
  }

  reset(): void {
    this.outputs.clear();
    this.answers.clear();
    this.failures.clear();
    this.step = undefined;
    this.edits = 0;
    this.run = 0;
    this.runEvents = [];
    this.runDescribed = [];
    this.strongest = { count: 0, detail: "" };
    this.cursors.clear();
    this.advancing = undefined;
  }

  status() {
    const warnAt = this.settings.warnAt || 1;
    return { id: this.id, enabled: true, progress: Math.min(1, this.strongest.count / warnAt), detail: this.strongest.detail ? `${this.strongest.detail} ${this.strongest.count}/${warnAt}` : "" };
  }
}


/** Whether a text holds a word (two or more letters or digits, per-run noise aside) that the call's input does not. */
function hasOwnWords(text: string, input: string): boolean {
  const lowered = input.toLowerCase();
  // line by line, up to the first own word (a word never runs across a line break)
  return someContentLine(text, WORD_CHARS, (line) => {
    // (exec, not matchAll: matchAll copies the pattern for every line)
    WORD.lastIndex = 0;
    for (let m = WORD.exec(line); m !== null; m = WORD.exec(line)) {
      const w = m[0].toLowerCase();
      if (!NOISE.test(w) && !STATUS_WORDS.has(w) && !lowered.includes(w)) return true;
    }
    return false;
  });
}

/** Words of the envelopes and status lines hosts wrap answers in ("Error: (none)", "Exit code: 0"): no content of their own. */
const STATUS_WORDS = new Set(["none", "empty", "null", "ok", "done", "success", "successfully", "succeeded", "output", "error", "errors", "exit", "code", "stdout", "stderr", "signal", "command", "directory", "root", "executed", "terminal", "working", "within", "result", "results", "true", "false", "completed", "finished", "wall", "time", "elapsed", "duration", "took", "seconds", "ms"]);

/**
 * Calls that neither make nor lack progress: waits (a poll's "not yet" is tool-repeat's to judge),
 * runs the user asked for, and a file read answered with no text at all (an empty file, or a log
 * that kept no output: what it showed is not known, so neither is whether it was new).
 */
function neutral(call: CallRecord): boolean {
  return call.waits || call.pollRequested || call.requested > 1 || isPlanTool(call.name) || (call.kind === "read" && call.result !== undefined && call.result.ok && isBlank(call.result.text));
}

function isBlank(text: string): boolean {
  return text.trim() === "";
}

export const toolProgress: DetectorDefinition = {
  id: "tool-progress",
  title: "Steps without progress",
  shortTitle: "Idle steps",
  description: "Step after step of tool calls that change nothing and answer nothing the session had not already seen, whatever the calls; or edits after which a failing command fails the very same way.",
  channel: "tool",
  defaults: TOOL_PROGRESS_DEFAULTS,
  create: (settings) => new ToolProgressDetector(settings),
  strength: {
    unit: "steps without progress",
    meaning: "tool calls in a row that changed nothing in the workspace and answered nothing the session had not already seen, the call being made included; waits and runs you asked for are neutral, and any step that brings something new starts the count over.",
  },
  parameters: {
    ineffectiveEdits: {
      description: "Edits in a row after each of which a failing command failed the very same way (noise such as times masked) before the warning: the edits change nothing about the outcome. Example: `3` (the default): the third such edit warns.",
    },
  },
};
