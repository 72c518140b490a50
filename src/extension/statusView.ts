/** What the status bar item shows for each overall state: wording and colours in one place, no vscode import. */
import type { HostStatus } from "../hosts/hostAdapter";
import type { InterventionRecord, OverallState, SessionSummary } from "./sessionManager";
import { COMMANDS, INTERNAL_COMMANDS } from "./commandIds";
import { REMEDY_LABELS } from "./notifier";
import { plural, stateWords, type InterventionPhase, type Tone } from "./stateWords";

export interface StatusBarView {
  state: OverallState["kind"];
  /** The latest intervention's phase while there is an alert. */
  phase?: InterventionPhase;
  text: string;
  tooltip: string;
  background: string | undefined;
  /** The text without its icon, as a screen reader says it. */
  label: string;
}

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, "\\$&");
}

const HOST_STATE_WORDS: Record<HostStatus["state"], string> = { watching: "watching", inactive: "found, not connected yet", error: "found, but there is a problem", "not-found": "not installed" };

/** Found hosts one per line; the ones not installed folded into one line. */
export function hostLines(hosts: readonly HostStatus[]): string {
  const found = hosts.filter((h) => h.state !== "not-found");
  const missing = hosts.filter((h) => h.state === "not-found");
  const lines = found.map((h) => {
    const state = HOST_STATE_WORDS[h.state];
    // A detail that already starts with the state ("watching Fake Roo …") says it once.
    if (h.detail.toLowerCase().startsWith(state)) return `- **${escapeMarkdown(h.label)}**: ${escapeMarkdown(h.detail)}`;
    return `- **${escapeMarkdown(h.label)}**: ${state}${h.detail ? ` — ${escapeMarkdown(h.detail)}` : ""}`;
  });
  if (missing.length) lines.push(`- Not installed: ${missing.map((h) => escapeMarkdown(h.label)).join(", ")}`);
  return lines.join("\n");
}

/** "Cline", "Roo Code and Cline", "3 agents". */
function hostNames(hosts: readonly HostStatus[]): string {
  const names = [...new Set(hosts.map((h) => h.label))];
  if (names.length <= 2) return names.join(" and ");
  return plural(names.length, "agent");
}

/** "Watching Cline (1 task)", "Watching Roo Code (no task yet)". */
export function watchingText(hosts: readonly HostStatus[], sessions: number): string {
  const watched = hosts.filter((h) => h.state === "watching");
  const who = watched.length ? hostNames(watched) : "agents";
  return `Watching ${who} (${sessions ? plural(sessions, "task") : "no task yet"})`;
}

const TONE_BACKGROUND: Record<Tone, string | undefined> = { warning: "statusBarItem.warningBackground", error: "statusBarItem.errorBackground", neutral: undefined };

function icon(phase: InterventionPhase, action: InterventionRecord["action"]): string {
  if (phase === "asking") return "$(question)";
  if (phase === "failed") return "$(error)";
  if (phase === "done" && action !== "warn") return "$(debug-stop)";
  return "$(warning)";
}

/** The command link that answers an open question from the tooltip. */
export function answerLink(label: string, sessionKey: string, interventionId: number, answer: "act" | "dismiss"): string {
  return `[${escapeMarkdown(label)}](command:${INTERNAL_COMMANDS.answer}?${encodeURIComponent(JSON.stringify([sessionKey, interventionId, answer]))})`;
}

/** The tooltip's lines for one intervention: where, what was seen, the state in words, the host's account. */
export function interventionLines(session: SessionSummary, iv: InterventionRecord): string[] {
  const words = stateWords(iv.phase, iv.action);
  const lines = [
    `**${escapeMarkdown(words.headline)}** in ${escapeMarkdown(session.hostLabel)} task *${escapeMarkdown(session.title)}*`,
    `${escapeMarkdown(iv.detectorTitle)}: ${escapeMarkdown(iv.summary)}`,
    escapeMarkdown(words.sentence),
  ];
  // The host's own account says how (or why not); a question or a replay has none worth a line.
  if ((iv.phase === "done" || iv.phase === "failed" || iv.phase === "pending") && iv.outcome) lines.push(`${escapeMarkdown(session.hostLabel)}: ${escapeMarkdown(iv.outcome)}`);
  // What would make acting possible, instead of an action that would fail here.
  if (iv.phase === "unavailable" && iv.remedy) lines.push(escapeMarkdown(iv.remedy.why), escapeMarkdown(iv.remedy.fix));
  return lines;
}

/** Pure mapping from state to what the item shows (kept apart so that its wording is in one place). */
export function describeState(state: OverallState): StatusBarView {
  const settingsLink = `[Settings](command:${COMMANDS.configure})`;
  const panelLink = `[Show details](command:${COMMANDS.showDiagnostics})`;
  const view = (text: string, tooltip: string, background?: string, phase?: InterventionPhase): StatusBarView =>
    ({ state: state.kind, phase, text, tooltip, background, label: text.replace(/\$\([a-z~-]+\)\s*/g, "") });
  switch (state.kind) {
    case "disabled":
      return view("$(circle-slash) Loop Sentinel: off",
        `**Loop Sentinel is off.** Nothing is watched.\n\n[Turn on](command:${COMMANDS.turnOn}) · ${settingsLink}`);
    case "no-host":
      // Ready, not off: it starts watching as soon as an agent shows up.
      return view("$(eye) Loop Sentinel: ready",
        `**Loop Sentinel is on; no agent is installed yet.** Install Roo Code, Kilo Code or Cline and their tasks are watched from the start, or replay a recorded session.\n\n${hostLines(state.hosts)}\n\n` +
        `[Replay a session file…](command:${COMMANDS.replay}) · ${panelLink} · ${settingsLink}`);
    case "watching":
      return view(`$(eye) ${watchingText(state.hosts, state.sessions)}`,
        `**Loop Sentinel: ${escapeMarkdown(watchingText(state.hosts, state.sessions).replace(/^W/, "w"))}.** No loop right now.\n\n${hostLines(state.hosts)}\n\n${panelLink} · ${settingsLink}`);
    case "warning":
    case "intervened": {
      const { session, intervention: iv } = state.latest;
      const words = stateWords(iv.phase, iv.action);
      // Details of this task, not whichever session the panel showed last.
      const taskLink = `[Show details](command:${COMMANDS.showDiagnostics}?${encodeURIComponent(JSON.stringify([session.key]))})`;
      const links = [taskLink, `[Reset](command:${COMMANDS.reset})`, settingsLink];
      if (iv.phase === "asking") links.unshift(answerLink(words.actLabel, session.key, iv.id, "act"), answerLink("Dismiss", session.key, iv.id, "dismiss"));
      if (iv.phase === "unavailable" && iv.remedy?.offer === "install-cline-hook") links.unshift(`[${REMEDY_LABELS["install-cline-hook"]}](command:${COMMANDS.installClineHook})`);
      return view(`${icon(iv.phase, iv.action)} ${words.headline}`,
        [...interventionLines(session, iv), links.join(" · ")].join("\n\n"), TONE_BACKGROUND[words.tone], iv.phase);
    }
  }
}
