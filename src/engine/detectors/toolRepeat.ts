/**
 * f. Identical successful calls that bring nothing new: same signature, same output, no write,
 * edit or mutating command in between. Polling whose output changes is progress; so is a
 * re-run after an edit (the epoch changes). Failures are counted apart by tool-failure.
 * A repeat after a wait (`sleep 60`, or a command that sleeps itself) that gave the world time to
 * change (at least `pollMinIntervalSeconds` since the previous identical call, by the clock or by
 * the sleeps themselves) is a poll: unchanged output then means "not yet", so polls count one
 * repeat per `pollsPerRepeat` of them. A short wait (`sleep 2; ls` every turn) buys nothing: its
 * unchanged output counts in full. A target whose output already changed on its own this epoch (a
 * growing log, a process status) is judged by its answers, not at the call: while the answers
 * change it is progress; once they stop, the third identical answer is the loop. Once an answer
 * says the polled thing has finished (`"status": "completed"`, a process that exited), waiting longer
 * will not change it: later identical answers count in full, waits or not.
 * Runs of a call that the user asked for ("run it three times") are not counted.
 */
import type { Detector, DetectorDefinition, DetectorSettings, Finding } from "../detector";
import { describeCall, type CallRecord } from "../ledger";
import { BoundedMap } from "../boundedMap";

/** Signatures remembered at once; the least recently used are forgotten first. */
const MAX_TRACKED_SIGNATURES = 2048;

interface Streak {
  epoch: number;
  /** The session's wait count at the latest call: a higher one on the next call makes it a poll. */
  waitCount: number;
  /** Time of the latest call, to tell a poll that waited long enough from a short wait. */
  lastTs?: number;
  /** The session's waited seconds at the latest call: what its sleeps waited since. */
  waitedSeconds: number;
  /** Output of the latest answered call in the streak. */
  lastHash?: string;
  /** Answered calls in a row with identical output (polls excepted). */
  identical: number;
  /** Answered polls with output identical to the previous call. */
  polls: number;
  /** The output changed between identical calls this epoch: the target changes on its own. */
  live: boolean;
  /** The latest answer says the polled job or process has finished. */
  finished: boolean;
  /**
   * Calls made but not yet answered (a parallel batch, or a host that reports no results), by id:
   * whether each is a poll. Most streaks never have two at once: the one is kept inline
   * (pendingId, pendingPoll), and a Map is made when a second comes (see addPending).
   */
  pendingId?: string;
  pendingPoll: boolean;
  pendingMore?: Map<string, boolean>;
  events: number[];
  /** Distinct exact signatures in the streak (commands that differ only in flags or spelling): the first, and a set once there is another. */
  spelling: string;
  spellings?: Set<string>;
  /** The detector's count of real (not no-op) calls at the streak's latest call. */
  realCalls: number;
}

/**
 * An answer saying the polled job or process is over: a status field with a final state (CI runs,
 * background shells, deployments), or a process reported exited. A running state never matches.
 */
const FINISHED = /<status>\s*(?:completed|exited|failed|killed|done)\s*<\/status>|["']?\b(?:status|state|phase|conclusion)["']?\s*[:=]\s*["']?(?:completed|complete|finished|exited|done|succeeded|success|failed|failure|cancell?ed|terminated|dead|stopped)\b|\bprocess (?:has )?(?:exited|finished|completed|terminated)\b/i;
/** How much of an answer is searched for a final state. */
const FINISHED_CHARS = 2000;

/**
 * A cheap necessary condition for FINISHED, so that its many alternatives are tried only on the few
 * answers that could match: each of its branches needs `<status>`, `process `, or a status word and a
 * `:` or `=`. Searched for in the lower-cased text: a case-insensitive pattern would try every
 * position, a plain search costs a fraction of that (FINISHED's /i matches only ASCII letters
 * either way, which lower-casing keeps).
 */
function mayTellFinished(head: string): boolean {
  const lower = head.toLowerCase();
  return lower.includes("<status>") || lower.includes("process ") || ((lower.includes(":") || lower.includes("=")) && (lower.includes("stat") || lower.includes("phase") || lower.includes("conclusion")));
}

/** Evidence events kept per streak. */
const MAX_EVIDENCE = 16;
/** Spellings of one loosened command remembered for the summary. */
const MAX_SPELLINGS = 8;
/** Unanswered calls tracked per streak (a host that never reports results must not grow it). */
const MAX_PENDING = 64;

export const TOOL_REPEAT_DEFAULTS: DetectorSettings = { enabled: true, warnAt: 3, blockAt: 5, stopAt: 7, pollsPerRepeat: 4, pollMinIntervalSeconds: 30 };

export function suggestionForKind(kind: CallRecord["kind"]): string {
  switch (kind) {
    case "read": return "The file has not changed since you read it: use what you already have, or read a different part.";
    case "search": case "list": return "The result will not change: use it, or search for something else.";
    case "command": return "Running it again will give the same output: change something first, or try a different command.";
    case "fetch": return "Fetching it again returns the same thing: use that result or look elsewhere.";
    default: return "Repeating it will not change the result: try a different approach.";
  }
}

/** Notes an unanswered call of the streak, as Map.set would (a known id keeps its place); past MAX_PENDING the oldest is forgotten. */
function addPending(s: Streak, id: string, isPoll: boolean): void {
  if (s.pendingMore) {
    s.pendingMore.set(id, isPoll);
    if (s.pendingMore.size > MAX_PENDING) s.pendingMore.delete(s.pendingMore.keys().next().value as string);
  } else if (s.pendingId === undefined || s.pendingId === id) {
    s.pendingId = id;
    s.pendingPoll = isPoll;
  } else {
    s.pendingMore = new Map([[s.pendingId, s.pendingPoll], [id, isPoll]]);
    s.pendingId = undefined;
  }
}

/** Whether the answered call was a poll (undefined when it was not pending), and forgets it. */
function takePending(s: Streak, id: string): boolean | undefined {
  if (s.pendingMore) {
    const isPoll = s.pendingMore.get(id);
    s.pendingMore.delete(id);
    return isPoll;
  }
  if (s.pendingId !== id) return undefined;
  s.pendingId = undefined;
  return s.pendingPoll;
}

/** A streak's latest answer when it was a failure: a success after it is an outcome that changed. */
const FAILED = "\u0000failed";

class ToolRepeatDetector implements Detector {
  readonly id = "tool-repeat" as const;
  private streaks = new BoundedMap<string, Streak>(MAX_TRACKED_SIGNATURES);
  private strongest: { count: number; detail: string } = { count: 0, detail: "" };
  /** The status shows the strongest candidate since the last progress (epoch), not of all time. */
  private statusEpoch = -1;
  /** Calls that were not no-ops (`true`, `echo ok`, `pwd`), to tell a no-op repeated back to back from one sprinkled through work. */
  private realCalls = 0;

  constructor(private readonly settings: DetectorSettings) {}

  /**
   * Identical calls in the streak, the one being made included: answered with the same output,
   * or still unanswered. Polls weigh 1/pollsPerRepeat; runs the user asked for are free.
   */
  private countOf(s: Streak, requested: number): number {
    let fresh = 0;
    let polls = s.polls;
    // A live target's next answer may well differ: only its answers count.
    if (!s.live) {
      if (s.pendingMore) for (const isPoll of s.pendingMore.values()) if (isPoll) polls++; else fresh++;
      else if (s.pendingId !== undefined) if (s.pendingPoll) polls++; else fresh++;
    }
    return s.identical + fresh + Math.floor(polls / this.pollsPerRepeat) - Math.max(0, requested - 1);
  }

  private get pollsPerRepeat(): number {
    return Math.max(1, Number(this.settings.pollsPerRepeat) || 1);
  }

  /**
   * A poll: a wait since the previous identical call long enough for something outside to move:
   * same output = not yet. How long is told by the clock, or without one by the sleeps' own length.
   * Asked only after a wait: the interval's arithmetic then runs on the rare calls that need it, not
   * on every repeat (it had no feedback yet when onToolCall was first optimised, and deopted it).
   */
  private waitedLongEnough(call: CallRecord, s: Streak): boolean {
    const interval = call.ts !== undefined && s.lastTs !== undefined ? (call.ts - s.lastTs) / 1000 : call.waitedSeconds - s.waitedSeconds;
    const minInterval = Number(this.settings.pollMinIntervalSeconds ?? 0);
    // When the user asked to wait for it ("wait for the release build"), sleeps of half the interval
    // are the polling they asked for (by the sleeps' own length: a short sleep is still too short).
    return interval >= minInterval || (call.pollRequested && call.waitedSeconds - s.waitedSeconds >= minInterval / 2);
  }

  onToolCall(call: CallRecord): Finding[] | void {
    if (call.epoch !== this.statusEpoch) { this.statusEpoch = call.epoch; this.strongest = { count: 0, detail: "" }; }
    // A no-op between real calls (`echo done` after each step) is punctuation: only back to back is it a repeat.
    if (!call.noOp) this.realCalls++;
    let s = this.streaks.get(call.repeatKey);
    // A new streak is made holding this call's event (an array of its exact size: most streaks
    // never get a second call, and every streak lives long enough to be promoted).
    let begun = false;
    if (!s || s.epoch !== call.epoch || (call.noOp && s.realCalls !== this.realCalls)) {
      begun = true;
      // Every field present from the start: one shape for all streaks, and no separate property store
      // grown when an optional one is first set (each streak lives long: it is promoted with it).
      s = { epoch: call.epoch, waitCount: call.waitCount, lastTs: undefined, waitedSeconds: call.waitedSeconds, lastHash: undefined, identical: 0, polls: 0, live: false, finished: false, pendingId: undefined, pendingPoll: false, pendingMore: undefined, events: [call.eventIndex], spelling: call.signature, spellings: undefined, realCalls: this.realCalls };
      this.streaks.set(call.repeatKey, s);
    }
    if (s.spellings) { if (s.spellings.size < MAX_SPELLINGS) s.spellings.add(call.signature); } else if (call.signature !== s.spelling) s.spellings = new Set([s.spelling, call.signature]);
    // (a streak's events are never empty once it has a call: only a streak just begun has no call before this one)
    const isPoll = !begun && !s.finished && (call.waitCount !== s.waitCount || call.waits) && this.waitedLongEnough(call, s);
    s.waitCount = call.waitCount;
    s.waitedSeconds = call.waitedSeconds;
    s.lastTs = call.ts;
    addPending(s, call.id, isPoll);
    if (!begun) {
      s.events.push(call.eventIndex);
      if (s.events.length > MAX_EVIDENCE) s.events.shift();
    }
    return this.finding(call, s, true);
  }

  private finding(call: CallRecord, s: Streak, atCall: boolean): Finding[] | void {
    const count = this.countOf(s, call.requested);
    if (count > this.strongest.count) this.strongest = { count, detail: describeCall(call) };
    if (count < 2) return;
    const outputs = s.identical > 1 ? " and identical output" : "";
    const spellings = s.spellings?.size ?? 1;
    const input = spellings > 1 ? ` with inputs that differ only in flags or spelling (${spellings} variants)` : " with identical input";
    return [{
      detector: this.id,
      key: `${this.id}:${call.repeatKey}`,
      count,
      tool: call.name,
      toolCallId: atCall ? call.id : undefined,
      summary: `${describeCall(call)} called ${count} times${input}${outputs}, nothing changed in between`,
      suggestion: suggestionForKind(call.kind),
      evidence: { events: [...s.events], count, tool: call.name, path: call.kind === "read" ? call.target : undefined, command: call.kind === "command" ? call.target : undefined, identicalOutput: s.identical > 1 },
    }];
  }

  onToolResult(call: CallRecord): Finding[] | void {
    const s = this.streaks.peek(call.repeatKey);
    if (!s || !call.result || s.epoch !== call.epoch) return;
    const isPoll = takePending(s, call.id) ?? false;
    if (!call.result.ok) {
      // A failure is not a repeat of a success: tool-failure counts it. After a success, with nothing
      // changed, it is an outcome that changed by itself: the call is being sampled (a flaky test),
      // and its next answer cannot be foretold.
      if (s.lastHash !== undefined && s.lastHash !== FAILED) s.live = true;
      s.identical = 0;
      s.polls = 0;
      s.lastHash = FAILED;
      return;
    }
    const repeated = s.lastHash === call.result.outputHash;
    if (s.lastHash === undefined || repeated) {
      if (isPoll && repeated) s.polls++; else s.identical++;
    } else {
      // Output changed with nothing changed by the agent: polling that sees progress, a live target.
      s.identical = 1;
      s.polls = 0;
      s.live = true;
      s.events = [call.eventIndex];
    }
    s.lastHash = call.result.outputHash;
    const head = call.result.text.slice(0, FINISHED_CHARS);
    s.finished = mayTellFinished(head) && FINISHED.test(head);
    // A live target is judged by its answers: the one that makes the count is reported here.
    if (s.live && repeated) return this.finding(call, s, false);
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
  shortTitle: "Same tool call",
  strength: {
    unit: "identical calls",
    meaning: "the same call with the same input that gave the same answer, with nothing written, edited or changed in between; the call being made counts too. A write or edit starts the count over.",
  },
  parameters: {
    pollsPerRepeat: {
      description: "Repeats of a call made after a real wait (a `sleep`, or at least *Poll Min Interval Seconds* since the last one) count this many as one identical call: checking a build or a download every minute is patient, not looping. Example: `4` (the default) lets the agent poll 4 times for each identical call counted; `1` counts polls like any repeat.",
      tuning: true,
    },
    pollMinIntervalSeconds: {
      description: "Seconds that must pass between two identical calls for the second to count as a poll (see *Polls Per Repeat*). Shorter waits (`sleep 2; ls` every turn) count in full. Example: `30` (the default): a status check every minute is a poll, one every 5 seconds is a repeat.",
      tuning: true,
    },
  },
};
