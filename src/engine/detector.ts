/**
 * The contract between the session and its detectors. A detector watches one kind of
 * repetition and reports Findings; the session's ladder turns findings into interventions.
 */
import type { StreamEvent } from "./events";
import type { CallRecord, ToolLedger } from "./ledger";
import type { StreamChannel, StreamLine, StreamParagraph, StreamSentence } from "./streamText";
import type { ToolKnowledge } from "./toolKnowledge";

export type DetectorId =
  | "stream-repeat"
  | "line-repeat"
  | "near-duplicate"
  | "list-template"
  | "stagnation"
  | "text-progress"
  | "tool-repeat"
  | "tool-failure"
  | "tool-cycle"
  | "file-reread"
  | "search-spiral"
  | "edit-retry"
  | "tool-progress";

export type Channel = "stream" | "tool";
export type Action = "warn" | "block" | "abort" | "stop";

export interface Evidence {
  /** Event indices (0-based lines of the trace) that make up the repetition. */
  events: number[];
  /** How many times the thing repeated, in the detector's own unit. */
  count: number;
  /** The repeated text, cut to a readable length. */
  span?: string;
  /** The calls of a cycle, one short description each, in order. */
  cycle?: string[];
  tool?: string;
  path?: string;
  pattern?: string;
  command?: string;
  /** For near-duplicate and stagnation detectors: how alike the copies are (0..1). */
  similarity?: number;
  /** Whether the repeated calls returned identical output. */
  identicalOutput?: boolean;
}

export interface Finding {
  detector: DetectorId;
  /** Identity of what repeats; the ladder escalates per key and "ignore this pattern" matches it. */
  key: string;
  /** Strength in the detector's unit (copies, calls, paths...), compared with warnAt/blockAt/stopAt. */
  count: number;
  /** The tool whose per-tool thresholds apply. */
  tool?: string;
  /** The call that a block would refuse (tool channel). */
  toolCallId?: string;
  /** What repeats, in one line, for people and for the model. */
  summary: string;
  /** What to do instead. */
  suggestion: string;
  evidence: Evidence;
}

/** Numbers and switches of one detector. warnAt/blockAt/stopAt of 0 switch that rung off. */
export interface DetectorSettings {
  enabled: boolean;
  warnAt: number;
  blockAt: number;
  stopAt: number;
  [param: string]: number | boolean;
}

export interface DetectorContext {
  /** 0-based index of the event being processed. */
  readonly index: number;
  readonly ts: number | undefined;
  /** Requests started in this session (the current one is requestCount - 1). */
  readonly requestCount: number;
  /** Progress epoch: bumped by every successful write, edit or mutating command. */
  readonly epoch: number;
  readonly tools: ToolKnowledge;
  readonly ledger: ToolLedger;
}

export interface DetectorStatus {
  id: DetectorId;
  enabled: boolean;
  /** How close the strongest candidate is to the first rung (1 = firing). */
  progress: number;
  /** What the strongest candidate is, in a few words ("read_file a.ts 2/3"). */
  detail: string;
}

export interface Detector {
  readonly id: DetectorId;
  /** The user spoke (after any reset it causes): what they wrote can ground what the agent lists. */
  onUser?(text: string, ctx: DetectorContext): Finding[] | void;
  /** A request (model step) begins. */
  onRequestStart?(ctx: DetectorContext): Finding[] | void;
  /** A streamed chunk of reasoning or visible text. */
  onStream?(ev: StreamEvent, ctx: DetectorContext): Finding[] | void;
  /**
   * Complete lines, paragraphs and (of long prose lines) sentences of the stream, split once by the
   * session for every detector that reads text by line (the unfinished last line comes at `end`).
   */
  onLine?(line: StreamLine, ctx: DetectorContext): Finding[] | void;
  onParagraph?(paragraph: StreamParagraph, ctx: DetectorContext): Finding[] | void;
  /**
   * The unfinished prose line (up to 600 characters) when a chunk ends on a sentence's stop (it may be the line's
   * end): the same line (same id) comes to onLine at its newline, longer or not.
   */
  onLineSoFar?(line: StreamLine, ctx: DetectorContext): Finding[] | void;
  /**
   * Whether a line so far of this channel could tell the detector anything now (it has something
   * of this request to compare it with): joining and judging the line is skipped when no reader says so.
   */
  wantsLineSoFar?(channel: StreamChannel): boolean;
  onSentence?(sentence: StreamSentence, ctx: DetectorContext): Finding[] | void;
  /** The current request's stream finished. */
  onRequestEnd?(ctx: DetectorContext): Finding[] | void;
  /** A tool call, before it runs: a finding here can still block it. */
  onToolCall?(call: CallRecord, ctx: DetectorContext): Finding[] | void;
  /** A tool call's outcome (call.result is set). */
  onToolResult?(call: CallRecord, ctx: DetectorContext): Finding[] | void;
  /**
   * Forget the counts (newTurn: because the user spoke; else a manual or idle reset). A detector may
   * keep across a new turn what shows a loop spanning turns (the same question after every reply).
   */
  reset(newTurn?: boolean): void;
  status(): DetectorStatus;
}

/**
 * What one detector parameter means to a user: its setting's text in the Settings editor.
 * Kept beside the detector's defaults so that a new parameter comes with its explanation; a unit
 * test fails on a parameter of `defaults` without one, or with one that only restates its name.
 */
export interface ParameterInfo {
  /** Markdown: what the number changes, in which unit, with an example ("`4`: ..."). */
  description: string;
  /** A fine-tuning knob (which text counts as alike, how far back to look) rather than a choice most users make. */
  tuning?: boolean;
}

/** What a detector's count (its strength, compared with warnAt/blockAt/stopAt) counts, in plain words. */
export interface StrengthInfo {
  /** Plural noun, short: "identical calls", "catches". */
  unit: string;
  /** One sentence: what one unit is and when the count starts over. */
  meaning: string;
}

/**
 * The stream detectors count catches, not copies: their parameters decide when a passage is a loop
 * (a catch), and the first catch aborts the response, a second of the same passage stops the task.
 */
export const STREAM_STRENGTH: StrengthInfo = {
  unit: "catches",
  meaning: "times this detector caught the same looping passage since you last wrote to the agent, at most one per response. Its other settings decide what a catch is (how many copies, how alike).",
};

export interface DetectorDefinition {
  id: DetectorId;
  title: string;
  description: string;
  channel: Channel;
  defaults: DetectorSettings;
  create(settings: DetectorSettings): Detector;
  /** Two or three words, for the Settings editor's table of contents (about 18 characters fit). */
  shortTitle: string;
  strength: StrengthInfo;
  /** Every parameter of `defaults` other than enabled, warnAt, blockAt and stopAt, described. */
  parameters: Readonly<Record<string, ParameterInfo>>;
}
