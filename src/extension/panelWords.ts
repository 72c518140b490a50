/**
 * What the diagnostics panel says, worked out in the extension (the webview only draws it): human
 * words first, indexes behind a disclosure. No vscode import: unit-tested in plain Node.
 */
import type { ActionPolicy } from "./settings";
import type { InterventionRecord, SessionSnapshot, UsageTotals } from "./sessionManager";
import { plural, stateWords, type StateWords } from "./stateWords";

/** "4–79", "3, 7–9, 12": event numbers as runs, so seventy numbers do not wrap across the card. */
export function eventRanges(events: readonly number[]): string {
  const sorted = [...new Set(events)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    runs.push(j === i ? String(sorted[i]) : j === i + 1 ? `${sorted[i]}, ${sorted[j]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return runs.join(", ");
}

/**
 * A detector's "strongest candidate" line in plain words: "read_file a.ts 8/3" (count over its
 * threshold) becomes "read_file a.ts: 8 times so far" (the row says which step comes next); counts of one agree with their noun;
 * a comparison that has nothing to compare yet is left out.
 */
export function humanDetail(detail: string, requests: number): string {
  let d = detail.trim();
  if (!d) return "";
  // Two requests are needed before "the last two requests" can be alike or not.
  if (/\blast two requests\b/.test(d) && requests < 2) return "";
  // One of a kind is not a repeat: "1 alike sentences" says nothing yet.
  if (/(^|\s|:)1 alike \w+$/.test(d)) return "";
  // The count only: which step it leads to, and at what count, is the row's "Next step".
  d = d.replace(/^(.*\S)\s+(\d+)\/(\d+)$/, (_m, what: string, n: string) => `${what}: ${plural(Number(n), "time")} so far`);
  d = d.replace(/(^|\s)1 ([a-z]+)s\b/g, (_m, pre: string, noun: string) => `${pre}1 ${noun}`);
  return d;
}

/** The header's mode line for the shown session, in what Loop Sentinel will do. */
export function modeWords(settings: { enabled: boolean; mode: string; actionPolicy: ActionPolicy; hostPolicies?: Record<string, ActionPolicy> }, session?: { hostId: string; hostLabel: string; replay: boolean }): string {
  if (!settings.enabled) return "Off: nothing is watched";
  if (session?.replay) return "Replay: nothing is sent";
  if (settings.mode === "warnOnly") return "Warn-only: shows loops, never acts";
  const policy = (session && settings.hostPolicies?.[session.hostId]) ?? settings.actionPolicy;
  const what = policy === "ask" ? "asks you before acting" : "acts on loops by itself";
  return session ? `${session.hostLabel}: ${what}` : capitalise(what);
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function fmtInt(n: number): string {
  return Math.round(n || 0).toLocaleString("en-US");
}

/** A cost in dollars; none recorded for tokens used means the model's price is not known, not that it was free. */
function fmtCost(c: number, tokens = 0): string {
  if (!c) return tokens ? "price unknown" : "$0";
  return `$${c.toFixed(c < 0.1 ? 3 : 2)}`;
}

export interface FigureCard { label: string; value: string; note?: string }

/** The "spent in loops" and "saved" cards; a replay says what would have been saved, a live session only what was. */
export function loopCards(s: Pick<SessionSnapshot, "replay" | "spentInLoops" | "savedEstimate" | "interventions">): FigureCard[] {
  const usage = (u: UsageTotals) => (u.requests && !u.tokens ? `${plural(u.requests, "request")}; no token use recorded` : `${plural(u.requests, "request")}, ${fmtCost(u.cost, u.tokens)}`);
  const spent: FigureCard = { label: "Spent in loops", value: `${fmtInt(s.spentInLoops.tokens)} tokens`, note: s.spentInLoops.requests ? usage(s.spentInLoops) : "no loop so far" };
  const cutShort = s.interventions.filter((r) => r.action === "abort" || r.action === "stop");
  // The estimate in plain words: what the loop would have cost had it gone on as long again.
  const again = (u: UsageTotals) => `if the loop had gone on as long again (${usage(u)})`;
  let saved: FigureCard;
  if (s.replay) {
    saved = { label: "Would have saved (estimate)", value: `${fmtInt(s.savedEstimate.tokens)} tokens`,
      note: cutShort.length ? `${capitalise(again(s.savedEstimate))}. A replay sends nothing.` : "replay: no abort or stop would have been made" };
  } else if (s.savedEstimate.requests) {
    saved = { label: "Saved (estimate)", value: `${fmtInt(s.savedEstimate.tokens)} tokens`, note: capitalise(again(s.savedEstimate)) };
  } else {
    // Agrees with the cards: a stop still asked about, on its way or failed saved nothing yet.
    const latest = cutShort[cutShort.length - 1];
    const why = latest ? stateWords(latest.phase, latest.action).short.toLowerCase() : "";
    saved = { label: "Saved (estimate)", value: "0 tokens", note: latest ? `nothing aborted or stopped yet (${why})` : "nothing aborted or stopped yet" };
  }
  return [spent, saved];
}

/** An intervention as the panel draws it. */
export interface InterventionView extends InterventionRecord {
  words: StateWords;
  /** The event numbers as runs ("4–79"), shown only behind a disclosure. */
  eventsText: string;
  /** The repeated text, unless the summary already quotes it. */
  repeatedText?: string;
  /** The summary split around its quote of the repeated text (before, quote, after), to highlight it there. */
  summaryParts?: [string, string, string];
  /** The guidance as the card shows it: a stop not carried out says it would stop, not that it stopped. */
  guidanceText: string;
}

/** Where the summary quotes the start of the span: [start, end) of the longest quoted prefix, if at least 12 characters. */
function quoteIn(summary: string, span: string): [number, number] | undefined {
  const probe = span.slice(0, Math.min(24, span.length));
  const at = probe.length >= 12 ? summary.indexOf(probe) : -1;
  if (at < 0) return undefined;
  let n = probe.length;
  while (at + n < summary.length && n < span.length && summary[at + n] === span[n]) n++;
  return [at, at + n];
}

export function interventionView(r: InterventionRecord): InterventionView {
  const span = r.evidence.span?.trim();
  // The summary often quotes the start of the span: show the passage once, highlighted where it is quoted.
  const quote = span ? quoteIn(r.summary, span) : undefined;
  return {
    ...r, words: stateWords(r.phase, r.action), eventsText: eventRanges(r.evidence.events),
    repeatedText: span && !quote ? span : undefined,
    summaryParts: quote ? [r.summary.slice(0, quote[0]), r.summary.slice(quote[0], quote[1]), r.summary.slice(quote[1])] : undefined,
    guidanceText: r.phase === "done" || r.phase === "pending" ? r.message : r.message.replace(/^Loop Sentinel stopped the task\b/, "Loop Sentinel would stop the task"),
  };
}

/** A detector's three steps, from the settings (0 = that step is off). */
export interface Rungs { warnAt?: number; blockAt?: number; stopAt?: number }

const RUNG_WORDS: Array<{ key: keyof Rungs; name: string }> = [
  { key: "warnAt", name: "Warn" },
  { key: "blockAt", name: "Refuse the call" },
  { key: "stopAt", name: "Stop the task" },
];

/**
 * A detector row: how close its strongest candidate is to the detector's next step, and which step
 * that is ("3 of 5 to Refuse the call"), so a count past the warning never reads as "100% close to
 * firing" with nothing to show for it. A detector that acted says what it did.
 */
export interface DetectorView { id: string; title: string; enabled: boolean; percent: number; fired?: string; detail: string; next?: string }

/** The count in a status detail ("read_file a.ts 5/3": 5). */
function countOf(detail: string): number | undefined {
  const m = /(\d+)\/(\d+)\s*$/.exec(detail.trim());
  return m ? Number(m[1]) : undefined;
}

/** The next step a count leads to, and how far along it is. */
export function nextRung(count: number, rungs: Rungs): { name: string; at: number; percent: number } | undefined {
  const steps = RUNG_WORDS.map((r) => ({ name: r.name, at: rungs[r.key] ?? 0 })).filter((r) => r.at > 0);
  const next = steps.find((r) => count < r.at);
  if (!next) return undefined;
  return { name: next.name, at: next.at, percent: Math.round(Math.max(0, Math.min(1, count / next.at)) * 100) };
}

/** `warnOnly`: every step is a warning there (the engine sends nothing stronger), and the row says so. */
export function detectorViews(s: Pick<SessionSnapshot, "detectors" | "interventions" | "stats">, rungsOf: (id: string) => Rungs | undefined = () => undefined, warnOnly = false): DetectorView[] {
  const fired = new Map<string, InterventionRecord>();
  for (const r of s.interventions) if (!r.ignored) fired.set(r.detector, r);
  return s.detectors.map((d) => {
    const r = fired.get(d.id);
    const count = countOf(d.detail);
    const rungs = rungsOf(d.id);
    const next = count !== undefined && rungs ? nextRung(count, rungs) : undefined;
    const percent = next ? next.percent : Math.round(Math.max(0, Math.min(1, d.progress)) * 100);
    let nextText: string | undefined;
    const step = (n: string, at: number) => (warnOnly && n !== "Warn" ? `Warn at ${at}, in place of “${n}”` : `${n} at ${at}`);
    if (count !== undefined && rungs) nextText = next ? `${step(next.name, next.at)} (${count} now)` : `past its last step (${count} now)`;
    else if (rungs?.warnAt) nextText = `Warn at ${rungs.warnAt}`;
    return {
      id: d.id, title: d.title, enabled: d.enabled, percent,
      fired: r ? stateWords(r.phase, r.action).short : undefined,
      detail: humanDetail(d.detail, s.stats.requests),
      next: nextText,
    };
  });
}

/** One loop: the rungs one finding went through, newest last; the card shows the newest and lists them all. */
export interface LoopView { id: number; rungs: Array<{ id: number; name: string; state: string }> }

const ACTION_NAMES: Record<InterventionRecord["action"], string> = { warn: "Warn", block: "Refuse the call", abort: "Abort the response", stop: "Stop the task" };

/** Interventions grouped by the loop (detector and finding) they belong to, in order of each loop's newest step. */
export function loopViews(interventions: readonly Pick<InterventionRecord, "id" | "detector" | "key" | "action" | "phase">[]): LoopView[] {
  const groups = new Map<string, LoopView>();
  for (const r of interventions) {
    const k = `${r.detector}\u0000${r.key}`;
    const g = groups.get(k) ?? { id: r.id, rungs: [] };
    g.id = r.id;
    g.rungs.push({ id: r.id, name: ACTION_NAMES[r.action] ?? r.action, state: stateWords(r.phase, r.action).short });
    groups.set(k, g);
  }
  return [...groups.values()].sort((a, b) => a.id - b.id);
}

/** Session names as the selector lists them: tasks that share a name are told apart by the order they started in. */
export function distinctTitles<T extends { key: string; title: string; started?: number }>(sessions: readonly T[]): Map<string, string> {
  const byTitle = new Map<string, T[]>();
  for (const s of sessions) byTitle.set(s.title, [...(byTitle.get(s.title) ?? []), s]);
  const out = new Map<string, string>();
  for (const [title, list] of byTitle) {
    if (list.length === 1) { out.set(list[0].key, title); continue; }
    const ordered = [...list].sort((a, b) => (a.started ?? 0) - (b.started ?? 0));
    ordered.forEach((s, i) => out.set(s.key, `${title} (${i + 1} of ${ordered.length})`));
  }
  return out;
}

/** The empty panel's words: says when no agent is installed at all, or which ones are watched. */
export function emptyStateText(hosts: { found: readonly string[]; watching: readonly string[] }): string {
  if (hosts.found.length === 0) {
    return "No supported agent is installed. Loop Sentinel watches Roo Code, Kilo Code and Cline tasks as they run: install one and its tasks appear here. Meanwhile, replay a recorded session to see what it catches.";
  }
  const names = hosts.watching.length ? hosts.watching : hosts.found;
  return `Watching ${names.join(" and ")}. A task appears here as soon as it runs; or replay a recorded session.`;
}
