/**
 * The one vocabulary of an intervention's state. The status bar, its tooltip, the panel's cards and
 * the notifications all call stateWords(), so they cannot disagree. Past tense only for what the
 * host confirmed; a question still open, an action on its way and a replay say so.
 * No vscode import: unit-tested in plain Node.
 */

export type InterventionAction = "warn" | "block" | "abort" | "stop";

/**
 * Where one intervention stands:
 * - asking: the policy is "ask first" and the user has not answered;
 * - acting: handed to the host, its answer not back yet;
 * - pending: the host took it but has not confirmed it reached the model (guidance held or in transit);
 * - done: the host confirmed it;
 * - failed: the host could not do it;
 * - shown: warn-only mode, nothing sent;
 * - dismissed / ignored: the user said no (once / for this pattern);
 * - superseded: a stronger step was asked instead before the user answered this one;
 * - replay: a recorded session, nothing is ever sent;
 * - unavailable: the host cannot act on this task from here (Cline seen through its files only):
 *   nothing was offered, asked or tried.
 */
export type InterventionPhase = "asking" | "acting" | "pending" | "done" | "failed" | "shown" | "dismissed" | "ignored" | "superseded" | "replay" | "unavailable";

export type Tone = "warning" | "error" | "neutral";

export interface StateWords {
  /** A few words for a card's badge and a list: "Stopped the task", "Waiting for you", "Would abort the response". */
  short: string;
  /** The status bar's text: "Loop detected: waiting for you". */
  headline: string;
  /** One sentence for the tooltip, the card and the notification. */
  sentence: string;
  /** The button that carries the action out when the user is asked ("Stop the task"). */
  actLabel: string;
  tone: Tone;
  /** True only when the host confirmed the action (the words are in the past tense). */
  confirmed: boolean;
}

interface ActionWords { did: string; would: string; doing: string; cannot: string; act: string }

const ACTION_WORDS: Record<InterventionAction, ActionWords> = {
  warn: { did: "warned the agent", would: "would warn the agent", doing: "warning the agent", cannot: "could not warn the agent", act: "Warn the agent" },
  block: { did: "refused a call", would: "would refuse the call", doing: "refusing the call", cannot: "could not refuse the call", act: "Refuse the call" },
  abort: { did: "aborted a response", would: "would abort the response", doing: "aborting the response", cannot: "could not abort the response", act: "Abort the response" },
  stop: { did: "stopped the task", would: "would stop the task", doing: "stopping the task", cannot: "could not stop the task", act: "Stop the task" },
};

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The words for one intervention in one phase. */
export function stateWords(phase: InterventionPhase, action: InterventionAction): StateWords {
  const a = ACTION_WORDS[action] ?? ACTION_WORDS.warn;
  const base = { actLabel: a.act, confirmed: false };
  const strong = action !== "warn";
  switch (phase) {
    case "asking":
      return { ...base, short: "Waiting for you", headline: "Loop detected: waiting for you", tone: "warning",
        sentence: `Loop detected: waiting for you. Nothing has been sent; choose “${a.act}” to act.` };
    case "acting":
      return { ...base, short: `${capitalise(a.doing)}…`, headline: `Loop detected: ${a.doing}…`, tone: "warning",
        sentence: `Loop detected: ${a.doing}; the agent has not confirmed it yet.` };
    case "pending":
      return { ...base, short: "Guidance not yet delivered", headline: "Loop detected: guidance not yet delivered", tone: "warning",
        sentence: "Loop detected: guidance is on its way; the agent has not passed it to the model yet." };
    case "done":
      return { ...base, confirmed: true, short: capitalise(a.did), headline: `Loop detected: ${a.did}`, tone: strong ? "error" : "warning",
        sentence: `Loop Sentinel ${a.did}.` };
    case "failed":
      return { ...base, short: capitalise(a.cannot), headline: `Loop detected: ${a.cannot}`, tone: "error",
        sentence: `Loop detected, but Loop Sentinel ${a.cannot}.` };
    case "shown":
      return { ...base, short: "Warn-only: nothing sent", headline: "Loop detected: warn-only, nothing sent", tone: "warning",
        sentence: "Loop detected. Warn-only mode: shown here, nothing sent to the agent." };
    case "dismissed":
      return { ...base, short: "Dismissed: nothing sent", headline: "Loop detected: dismissed", tone: "neutral",
        sentence: "Loop detected; you dismissed it and nothing was sent." };
    case "ignored":
      return { ...base, short: "Ignored from now on", headline: "Loop detected: ignored from now on", tone: "neutral",
        sentence: "Loop detected; you chose to ignore this pattern, nothing was sent." };
    case "superseded":
      return { ...base, short: "Replaced by the next step", headline: "Loop detected: waiting for you", tone: "neutral",
        sentence: "Loop detected; a later step replaced this one, nothing was sent for it." };
    case "unavailable":
      return { ...base, short: "Cannot act from here", headline: "Loop detected: cannot act from here", tone: "warning",
        sentence: "Loop detected. Loop Sentinel cannot act on this task from here, so nothing was sent." };
    case "replay":
      return { ...base, short: capitalise(a.would), headline: `Replay: ${a.would}`, tone: "neutral",
        sentence: `Replay: here Loop Sentinel ${a.would}; nothing was sent.` };
  }
}

export const INTERVENTION_PHASES: readonly InterventionPhase[] = ["asking", "acting", "pending", "done", "failed", "shown", "dismissed", "ignored", "superseded", "replay", "unavailable"];
export const INTERVENTION_ACTIONS: readonly InterventionAction[] = ["warn", "block", "abort", "stop"];

/** "1 task", "3 tasks": counts in words that agree with their number. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}
