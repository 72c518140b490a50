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
import { attemptShape, mainCommand, shellWords, sweAgentEditor } from "../shellCommands";
import { commandExitedNonZero, errorDetail, errorFingerprint, errorLine, exactInputKey, hashText, isBannerLine, normaliseWhitespace, ownCopy, stableOutput, textSimilarity, tidyOperand } from "../signatures";

/** Tool scopes remembered at once. */
const MAX_SCOPES = 512;
/** Distinct failure fingerprints remembered per scope. */
const MAX_FINGERPRINTS = 8;
const MAX_EVIDENCE = 16;
/** Failing inputs remembered per streak. */
const MAX_INPUTS = 32;
/** How much of a failure's output is compared with the streak's first. */
const OUTPUT_CHARS = 2000;
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
  /** Request of the latest failure counted: failures within one request (a parallel batch) are one attempt. */
  lastRequest: number;
  /** What the latest failing call asked for, to compare the next one with. */
  lastInput: string;
  /** Whether the latest failing call acted on the project as a whole (no file, URL or script named). */
  wholeProject: boolean;
  /** Sub-commands that failed this way (`cargo build`, `cargo fetch`): a success of one of them ends the streak. */
  subs: Set<string>;
  /** Error text of the latest failure, cut, for the summary. */
  sample: string;
  /** Exact inputs of the streak's failing calls (hashed): a call among them is a retry of one that failed. */
  inputs: Set<string>;
  /** The first failure's output (noise masked), and whether every later failure answered exactly that. */
  output: string;
  sameOutput: boolean;
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

/** Programs whose first word is the program they run (`npx jest`, `uv run pytest`): that word is part of the program. */
const RUNNERS = /^(npx|bunx|pnpx|dlx|exec|run)$/;
/** Programs with sub-commands that all act on one project (`cargo build`/`cargo fetch`, `git pull`/`git push`). */
const SUBCOMMAND_PROGRAMS = /^(npm|pnpm|yarn|bun|gh|git|uv|poetry|cargo|go|docker|kubectl|dotnet|mvn|gradle|helm|terraform)$/;

interface Scopes {
  /** What failures are counted within: the tool, and for shells the program run. */
  program: string;
  /** The program with its sub-command (`cargo build`): a success here ends only this sub-command's streaks. */
  sub: string;
  /** Whether the call names no file, URL or script (`cargo fetch`, `go vet ./...` does): it acts on the project as a whole. */
  wholeProject: boolean;
}

/**
 * What a failure repeats within: the tool, and for shell tools the program that does the work
 * (`python`, `npx jest`, `cargo`), so that a failing `grep` and a failing `pytest` are not one
 * streak. Sub-commands of one program (`cargo build`, `cargo fetch`, `cargo update`) failing with
 * the same error are one streak: the project is broken the same way whichever of them runs.
 */
export function failureScope(call: CallRecord): Scopes {
  if (call.kind !== "command" || call.command === undefined) return { program: call.name, sub: call.name, wholeProject: false };
  // SWE-agent's editor commands carry their new text on the lines below: the program is the command.
  const editor = sweAgentEditor(call.command);
  if (editor) return { program: `${call.name} ${editor}`, sub: `${call.name} ${editor}`, wholeProject: false };
  const words = shellWords(mainCommand(call.command)).filter((w) => !/^\w+=/.test(w));
  // (a path or a version on the program's name does not make it another program: `python3`,
  // `/usr/bin/python3.11` and `python` run the same script the same way)
  let program = (words[0] ?? "").replace(/^.*[\\/]/, "").replace(/(?<=[A-Za-z]{2})-?\d+(?:\.\d+)*$/, "");
  let rest = words.slice(1);
  if (program === "python" && rest[0] === "-m" && rest[1]) { program += ` -m ${rest[1]}`; rest = rest.slice(2); }
  let sub = program;
  if (rest[0] && (RUNNERS.test(program) || (SUBCOMMAND_PROGRAMS.test(program) && RUNNERS.test(rest[0])))) {
    // `npx jest`, `uv run pytest`, `pnpm exec tsc`: the program is what is run.
    const runner = RUNNERS.test(program) ? [program] : [program, rest[0]];
    rest = rest.slice(runner.length - 1);
    // the runner's own flags (`go run -race ./cmd/x`, `npx -y jest`) do not change what is run
    while (rest.length > 1 && rest[0].startsWith("-")) rest = rest.slice(1);
    // (`./cmd/x/`, `cmd/x` and `'./cmd/x'` run the same thing)
    program = [...runner, tidyOperand(rest[0])].join(" ");
    sub = program;
    rest = rest.slice(1);
  } else if (rest[0] && SUBCOMMAND_PROGRAMS.test(program)) {
    sub = `${program} ${rest[0]}`;
    rest = rest.slice(1);
  }
  // Flags and redirections (`2>&1`, `> out.log`) do not name what the command works on.
  const operands = rest.filter((w, i) => !w.startsWith("-") && !/[<>]|^&$/.test(w) && !/^\d*>>?$/.test(rest[i - 1] ?? ""));
  const wholeProject = !operands.some((w) => w.length > 40 || /[\s\\/]|:\/\/|\.\w{1,6}$/.test(w) && !/^\.\/\.\.\.$|^\.\/?$/.test(w));
  return { program: `${call.name} ${program}`, sub: `${call.name} ${sub}`, wholeProject };
}

class ToolFailureDetector implements Detector {
  readonly id = "tool-failure" as const;
  private scopes = new BoundedMap<string, ScopeState>(MAX_SCOPES);
  /** The latest call's scopes: its result, which usually comes next, has the same (they depend on the call alone). */
  private scopedCall: CallRecord | undefined;
  private scopesOfCall: Scopes | undefined;
  private strongest = { count: 0, detail: "" };
  /** The status shows the strongest streak since the last progress (epoch). */
  private statusEpoch = -1;

  constructor(private readonly settings: DetectorSettings) {}

  private scopesOf(call: CallRecord): Scopes {
    if (this.scopedCall !== call || this.scopesOfCall === undefined) { this.scopesOfCall = failureScope(call); this.scopedCall = call; }
    return this.scopesOfCall;
  }

  private state(scope: string, epoch: number): ScopeState {
    let s = this.scopes.get(scope);
    if (!s || s.epoch !== epoch) {
      s = { epoch, waitCount: -1, byFingerprint: new Map() };
      this.scopes.set(scope, s);
    }
    return s;
  }

  /**
   * A call whose input never failed before (a new SQL string piped to a linter) is an experiment, not
   * a retry: it is not refused or stopped unless every failure so far answered the very same thing.
   */
  private countFor(f: FailureCount, novel: boolean, attempts: number): number {
    if (!novel || f.sameOutput) return attempts;
    const rungs = [Number(this.settings.blockAt), Number(this.settings.stopAt)].filter((n) => n > 0);
    return rungs.length === 0 ? attempts : Math.min(attempts, Math.min(...rungs) - 1);
  }

  /**
   * Failures so far; at a call that repeats a failed one exactly, the retry itself too when its answer
   * is foretold: every failure so far answered the very same thing with nothing changed in between
   * (the epoch) and no wait since (a poll may find things moved), so the 3rd identical try is warned
   * as it is made, as tool-repeat counts identical calls. Otherwise only once that retry would reach
   * the refusal rung: blockAt 4 refuses the 4th attempt, not the 5th.
   */
  private attempts(f: FailureCount, atCall: boolean, novel: boolean, waited: boolean): number {
    if (!atCall || novel) return f.count;
    if (f.sameOutput && !waited) return f.count + 1;
    const blockAt = Number(this.settings.blockAt);
    return blockAt > 0 && f.count + 1 >= blockAt ? f.count + 1 : f.count;
  }

  private finding(call: CallRecord, scope: string, fingerprint: string, f: FailureCount, atCall: boolean, novel: boolean, waited = false): Finding {
    return {
      detector: this.id,
      key: `${this.id}:${scope}\u0001${fingerprint}`,
      // Runs the user asked for are theirs, whatever they answer.
      count: this.countFor(f, novel, this.attempts(f, atCall, novel, waited)) - Math.max(0, call.requested - 1),
      tool: call.name,
      toolCallId: atCall ? call.id : undefined,
      summary: `${scope} failed ${f.count} times with the same error ("${f.sample}")${atCall ? `, and is being called again: ${describeCall(call, 60)}` : ""}`,
      suggestion: "Stop retrying variations of the same call: read the error, check the assumption behind it (path, URL, name, syntax), or take another route.",
      evidence: { events: [...f.events], count: f.count, tool: call.name, command: call.kind === "command" ? call.target : undefined, path: call.kind === "command" ? undefined : call.target },
    };
  }

  onToolCall(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    if (ctx.epoch !== this.statusEpoch) { this.statusEpoch = ctx.epoch; this.strongest = { count: 0, detail: "" }; }
    const scopes = this.scopesOf(call);
    const scope = scopes.program;
    const s = this.scopes.peek(scope);
    if (!s || s.epoch !== ctx.epoch || s.last === undefined) return;
    const f = s.byFingerprint.get(s.last);
    if (!f || f.count < 2) return;
    // Only a retry of the failing call is refused; something unrelated through the same tool goes ahead.
    if (!this.sameAttempt(f, inputText(call), scopes.wholeProject)) return;
    const waited = call.waits || (s.waitCount >= 0 && call.waitCount !== s.waitCount);
    return [this.finding(call, scope, s.last, f, true, !f.inputs.has(call.inputHash), waited)];
  }

  onToolResult(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    const result = call.result;
    if (!result) return;
    const scopes = this.scopesOf(call);
    const scope = scopes.program;
    // A Roo command that exited non-zero failed, though the tool call itself went through.
    const failed = !result.ok || (call.kind === "command" && commandExitedNonZero(result.text));
    if (!failed) {
      // The tool works for this (sub-)command again: its earlier failures were not one stuck streak.
      const s = this.scopes.peek(scope);
      if (s) {
        // A read of another file that works says nothing of the missing one: only a success of the
        // same attempt (or of a sub-command run on the project as a whole) ends its streak.
        const input = inputText(call);
        for (const [fp, f] of s.byFingerprint) if (f.subs.has(scopes.sub) && this.sameAttempt(f, input, scopes.wholeProject)) s.byFingerprint.delete(fp);
        if (s.last !== undefined && !s.byFingerprint.has(s.last)) s.last = undefined;
      }
      return;
    }
    const fingerprint = result.errorFingerprint ?? errorFingerprint(result.text);
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
    if (f && !this.sameAttempt(f, input, scopes.wholeProject)) {
      // Same error, unrelated call: a new attempt at something else, not a retry.
      s.byFingerprint.delete(fingerprint);
      f = undefined;
    }
    if (!f) {
      f = { count: 0, lastRequest: -1, lastInput: "", wholeProject: false, subs: new Set(), sample: "", inputs: new Set(), output: outputKey(result.text), sameOutput: true, events: [] };
      s.byFingerprint.set(fingerprint, f);
      if (s.byFingerprint.size > MAX_FINGERPRINTS) s.byFingerprint.delete(s.byFingerprint.keys().next().value as string);
    }
    const novel = !f.inputs.has(call.inputHash);
    // Calls of one batch were all decided before any of their errors came back: one attempt, not several.
    const sameBatch = f.lastRequest === call.requestIndex;
    if (!sameBatch) f.count++;
    f.lastRequest = call.requestIndex;
    if (f.count > 1 && outputKey(result.text) !== f.output) f.sameOutput = false;
    if (f.inputs.size < MAX_INPUTS) f.inputs.add(call.inputHash);
    f.lastInput = input.slice(0, SIMILARITY_CHARS);
    f.wholeProject = scopes.wholeProject;
    if (f.subs.size < MAX_FINGERPRINTS) f.subs.add(scopes.sub);
    f.sample = ownCopy(firstLineOf(result.text));
    f.events.push(call.eventIndex, result.eventIndex);
    if (f.events.length > MAX_EVIDENCE) f.events.splice(0, f.events.length - MAX_EVIDENCE);
    s.last = fingerprint;
    if (f.count > this.strongest.count) this.strongest = { count: f.count, detail: `${scope} ${f.count}` };
    if (f.count < 2 || sameBatch) return;
    return [this.finding(call, scope, fingerprint, f, false, novel)];
  }

  /**
   * Whether a call retries the failure's latest call: alike inputs (a URL with a new query string),
   * or two runs of one program on the project as a whole (`cargo fetch` after `cargo build --offline`).
   */
  private sameAttempt(f: FailureCount, input: string, wholeProject: boolean): boolean {
    if (wholeProject && f.wholeProject) return true;
    return textSimilarity(f.lastInput, input, SIMILARITY_CHARS) >= Number(this.settings.minSimilarity);
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
  // A throwaway script written to the temp directory and run is compared by what it does, not its body or name.
  return call.kind === "command" ? normaliseWhitespace(attemptShape(call.command ?? call.target)) : call.target;
}

/** A failure's output for comparison: per-run noise, URLs and paths masked (a 404 names the URL it missed). */
function outputKey(text: string): string {
  let out = stableOutput(text.slice(0, OUTPUT_CHARS));
  // Each mask needs a character many outputs lack (`://`, a slash): without it the scan changes nothing.
  if (out.includes("://")) out = out.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<url>");
  if (out.includes("/") || out.includes("\\")) out = out.replace(/(?:[a-z]:)?(?:[\w.-]*[\\/])+[\w.-]+/gi, "<path>");
  return hashText(out);
}

function firstLineOf(text: string): string {
  // A banner (`== [stdin] FAIL`) says nothing alone: show the line that follows it too.
  const detail = isBannerLine(errorLine(text)) ? errorDetail(text).split("\n")[0] : "";
  const line = detail ? `${errorLine(text)} ${detail}` : errorLine(text);
  return line.length > 100 ? line.slice(0, 99) + "…" : line;
}

export const toolFailure: DetectorDefinition = {
  id: "tool-failure",
  title: "Repeated tool failures",
  description: "The same tool failing with the same error again and again, even when the input varies a little.",
  channel: "tool",
  defaults: TOOL_FAILURE_DEFAULTS,
  create: (settings) => new ToolFailureDetector(settings),
  shortTitle: "Tool failures",
  strength: {
    unit: "failures",
    meaning: "failures in a row of one tool (for a shell, one program) with the same error, even when the input changes a little; the failures of one parallel batch count once. A success of that tool or any write or edit starts the count over.",
  },
  parameters: {
    minSimilarity: {
      description: "How alike (0 to 1) a failing call's input must be to the previous failing one for both to count as the same attempt. Example: `0.5` (the default): a URL fetched again with a new query string counts, a different script that hits the same missing module does not; `1` counts only identical inputs.",
      tuning: true,
    },
  },
};
