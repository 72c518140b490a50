/**
 * j. An edit retried on the same target that keeps failing: same file and same search text (the
 * replacement may change every time, which is why exact-input repeat counts never see it). Counts
 * failed attempts per edit signature within a progress epoch: once any edit lands, the file may
 * have changed and the old target may now exist. Fires at the call, so a block can refuse it.
 *
 * Second shape, edits that land but go round: one file rewritten again and again (whole-file writes,
 * or edits of the very lines an earlier edit of this streak wrote) with no new information from the
 * environment in between: no call answered anything new (a changed output, a different error; the
 * same failure again is nothing new). `rewriteEdits` such rewrites are a loop. Edits at new places
 * in the file (a module grown function by function) are building, not rewriting.
 */
import type { Detector, DetectorContext, DetectorDefinition, DetectorSettings, Finding } from "../detector";
import type { CallRecord } from "../ledger";
import { BoundedMap } from "../boundedMap";
import { heredocWriteTarget, samePathNamed } from "../shellCommands";
import { addedFileOf, commandExitedNonZero, errorLine, normaliseWhitespace, ownCopy, replacementOf } from "../signatures";

const MAX_TRACKED_EDITS = 512;
/** Blind edits awaiting their result (a host that never answers one must not grow the set). */
const MAX_BLIND_EDITS = 64;
const MAX_EVIDENCE = 16;

/** Counts are attempts, the one being made included: warn on the 3rd try after 2 failures. */
export const EDIT_RETRY_DEFAULTS: DetectorSettings = { enabled: true, warnAt: 3, blockAt: 4, stopAt: 6, rewriteEdits: 5 };

/** Files whose rewrites are followed at once. */
const MAX_TRACKED_FILES = 256;
/** Lines of a streak's replacements remembered, to tell an edit of the streak's own lines. */
const MAX_WRITTEN_LINES = 512;
/** Lines shorter than this (braces, `}`, `return;`) say nothing about where an edit is. */
const MIN_LINE = 8;

interface Rewrites {
  /** The news count when the streak began: news since ends it. */
  news: number;
  /** Rewrites of the file in the streak, the first write or edit included. */
  count: number;
  /** Lines that the streak's edits put in the file: made with the first (most streaks are one write, and every streak is kept long enough to be promoted). */
  lines: Set<string> | undefined;
  events: number[];
}

/** The file a call writes or edits, and whether it writes it whole (a write tool, an Add File patch, a heredoc). */
function writeOf(call: CallRecord): { path: string; whole: boolean } | undefined {
  if (call.kind === "command") {
    const path = call.command === undefined ? undefined : heredocWriteTarget(call.command);
    return path === undefined ? undefined : { path, whole: true };
  }
  if ((call.kind !== "edit" && call.kind !== "write") || call.target === undefined) return undefined;
  return { path: call.target, whole: call.kind === "write" || addedFileOf(call.input) !== undefined };
}

function meaningfulLines(text: string): string[] {
  return text.split("\n").map(normaliseWhitespace).filter((l) => l.length >= MIN_LINE);
}

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
  /** Per file, the rewrites since the environment last said something new. */
  private rewrites = new BoundedMap<string, Rewrites>(MAX_TRACKED_FILES);
  /** Calls that answered something new (outcome, output or error changed): the environment's news. */
  private news = 0;
  /** The news count when the latest streak began: once news has moved past it no streak is going (a read need not look through every file). */
  private latestStreakNews = -1;
  /**
   * Files whose streak began at news count latestStreakNews (some since forgotten or begun anew): the
   * only ones a streak can be going on, so that a read looks at them rather than every file.
   */
  private latestStreakFiles: string[] = [];
  /** The latest call: the file it wrote or edited, its response, and whether it was an edit. */
  private previousCall: { path: string | undefined; request: number; edit: boolean } | undefined;
  /** Edits that say not where they are, made right after an edit of the same file (until their result is read). */
  private blindEdits = new Set<CallRecord>();
  /** Latest outcome per call signature ("ok" + output hash, or "fail" + error fingerprint). */
  private outcomes = new BoundedMap<string, string>(1024);

  constructor(private readonly settings: DetectorSettings) {}

  onToolCall(call: CallRecord, ctx: DetectorContext): Finding[] | void {
    if (ctx.epoch !== this.statusEpoch) { this.statusEpoch = ctx.epoch; this.strongest = { count: 0, detail: "" }; }
    this.noteBlindEdit(call);
    const rewrite = this.rewriteFinding(call);
    if (rewrite) return [rewrite];
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

  /**
   * Whether the call rewrites what the file's streak already wrote: a whole-file write, an edit of
   * the streak's own lines, or an edit that says not where it is (a sketch of the new code, a body
   * not recorded) made in the next response right after the previous edit of the file, nothing at
   * all called between: with nothing looked at, it can only be going over the same ground.
   */
  private rewrites_(call: CallRecord, r: Rewrites | undefined): boolean {
    if (!r || r.count === 0) return false;
    if (writeOf(call)?.whole) return true;
    const edit = replacementOf(call.input);
    if (edit === undefined) return this.blindEdits.has(call);
    const lines = r.lines;
    return lines !== undefined && meaningfulLines(edit.target).some((l) => lines.has(l));
  }

  /** Whether a file (named as the read names it: relative or absolute) has a rewrite streak going. */
  private isBeingRewritten(path: string): boolean {
    if (this.latestStreakNews !== this.news) return false;
    for (const p of this.latestStreakFiles) if (this.rewrites.peek(p)?.news === this.news && samePathNamed(p, path)) return true;
    return false;
  }

  private streakOf(path: string): Rewrites | undefined {
    const r = this.rewrites.peek(path);
    return r && r.news === this.news ? r : undefined;
  }

  private rewriteFinding(call: CallRecord): Finding | undefined {
    const target = writeOf(call)?.path;
    if (target === undefined) return;
    const r = this.streakOf(target);
    if (!this.rewrites_(call, r)) return;
    const rewrites = r!.count + 1;
    const at = Math.max(2, Number(this.settings.rewriteEdits) || 5);
    // The count on the ladder's scale: `rewriteEdits` rewrites reach warnAt.
    const count = rewrites - at + (Number(this.settings.warnAt) || 1);
    if (count > this.strongest.count) this.strongest = { count, detail: `${call.name} ${target} rewritten ${rewrites}x` };
    if (rewrites < at) return;
    return {
      detector: this.id,
      key: `${this.id}:rewrite\u0001${target}`,
      count,
      tool: call.name,
      toolCallId: call.id,
      summary: `${target} rewritten ${rewrites} times with nothing new learnt in between (no command or check answered anything new)`,
      suggestion: "Rewriting the file again will not tell you whether it works: run the test or the program to learn what is wrong, or read the error once more, before changing it again.",
      evidence: { events: [...r!.events, call.eventIndex], count: rewrites, tool: call.name, path: target },
    };
  }

  /** Marks an edit that says not where it is, made in a new response right after an edit of the same file. */
  private noteBlindEdit(call: CallRecord): void {
    const written = writeOf(call);
    const previous = this.previousCall;
    this.previousCall = { path: written?.path, request: call.requestIndex, edit: call.kind === "edit" };
    if (call.kind !== "edit" || written === undefined || written.whole || replacementOf(call.input) !== undefined) return;
    if (previous === undefined || !previous.edit || previous.path !== written.path || previous.request === call.requestIndex) return;
    this.blindEdits.add(call);
    if (this.blindEdits.size > MAX_BLIND_EDITS) this.blindEdits.delete(this.blindEdits.values().next().value as CallRecord);
  }

  private noteStreakBegun(path: string): void {
    if (this.latestStreakNews !== this.news) { this.latestStreakNews = this.news; this.latestStreakFiles = []; }
    this.latestStreakFiles.push(path);
    // Files written again and again with no news between: keep only those still remembered, once each.
    if (this.latestStreakFiles.length > 2 * MAX_TRACKED_FILES) this.latestStreakFiles = [...new Set(this.latestStreakFiles)].filter((p) => this.rewrites.peek(p)?.news === this.news);
  }

  /** A result that told something new ends every file's rewrite streak; an own write or edit extends its file's. */
  private noteRewrite(call: CallRecord): void {
    const result = call.result!;
    const written = writeOf(call);
    if (written) {
      const rewrite = this.rewrites_(call, this.streakOf(written.path));
      this.blindEdits.delete(call);
      // (the same blind edit made again is one more pass over the same ground)
      if (!result.ok || (call.unchanging && !rewrite)) return;
      let r = this.streakOf(written.path);
      // A streak begins counting this write, its first event in an array of its exact size.
      if (!r) { r = { news: this.news, count: 1, lines: undefined, events: [call.eventIndex] }; this.rewrites.set(written.path, r); this.noteStreakBegun(written.path); }
      else if (rewrite || r.count === 0) { r.count++; r.events.push(call.eventIndex); if (r.events.length > MAX_EVIDENCE) r.events.shift(); }
      // A whole-file write's lines are not "the streak's own edits": editing them next is building on it.
      const edit = call.kind === "edit" && !written.whole ? replacementOf(call.input) : undefined;
      if (edit) for (const l of meaningfulLines(edit.text)) { r.lines ??= new Set(); if (r.lines.size < MAX_WRITTEN_LINES) r.lines.add(l); }
      return;
    }
    // Reading back a file being rewritten shows the agent its own writing, not news.
    if (call.reads?.some((f) => this.isBeingRewritten(f.path))) return;
    // Roo reports a command that exited non-zero as a tool success: its envelope says it failed.
    const ok = result.ok && !(call.kind === "command" && commandExitedNonZero(result.text));
    // Output compared with per-run noise masked: "3 failed" → "2 failed" is news, a new duration is not.
    const outcome = `${ok ? "ok" : "fail"}\u0001${result.outputHash}`;
    const before = this.outcomes.get(call.signature);
    this.outcomes.set(call.signature, outcome);
    // A first failure says "still broken", which the rewrites were about; a first success, a changed
    // output or a different error is new.
    if (before === undefined ? ok : before !== outcome) this.news++;
  }

  onToolResult(call: CallRecord, ctx: DetectorContext): void {
    if (call.result) this.noteRewrite(call);
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
    a.lastError = ownCopy(line.length > 100 ? line.slice(0, 99) + "…" : line);
    a.events.push(call.eventIndex);
    if (a.events.length > MAX_EVIDENCE) a.events.shift();
  }

  reset(): void {
    this.edits.clear();
    this.rewrites.clear();
    this.previousCall = undefined;
    this.blindEdits.clear();
    this.latestStreakFiles = [];
    this.outcomes.clear();
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
  description: "An edit of the same file and the same search text that fails again and again, whatever the replacement; or one file rewritten again and again with nothing learnt in between.",
  channel: "tool",
  defaults: EDIT_RETRY_DEFAULTS,
  create: (settings) => new EditRetryDetector(settings),
  shortTitle: "Failing edits",
  strength: {
    unit: "attempts",
    meaning: "tries at the same edit of one file with the same search text that keeps failing, whatever the replacement; the try being made counts too. An edit that lands starts the count over.",
  },
  parameters: {
    rewriteEdits: {
      description: "Rewrites of one file (whole-file writes, or edits of the very lines an earlier edit wrote) with nothing new learnt in between that count as a loop and reach *Warn At*; each further rewrite counts one more. Example: `5` (the default) warns at the 5th rewrite; edits that add code at new places never count.",
      tuning: true,
    },
  },
};
