/** What the status bar item shows for each overall state: wording and colours in one place, no vscode import. */
import type { OverallState } from "./sessionManager";
import { COMMANDS } from "./commandIds";

export interface StatusBarView {
  state: OverallState["kind"];
  text: string;
  tooltip: string;
  background: string | undefined;
}

const ACTION_WORDS: Record<string, string> = { warn: "warned the agent", block: "refused a repeated call", abort: "aborted a looping response", stop: "stopped the task" };

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, "\\$&");
}

/** Pure mapping from state to what the item shows (kept apart so that its wording is in one place). */
export function describeState(state: OverallState): StatusBarView {
  const settingsLink = `[Settings](command:${COMMANDS.configure})`;
  const panelLink = `[Show diagnostics](command:${COMMANDS.showDiagnostics})`;
  const hostLines = "hosts" in state ? state.hosts.map((h) => `- **${escapeMarkdown(h.label)}**: ${h.state} — ${escapeMarkdown(h.detail)}`).join("\n") : "";
  switch (state.kind) {
    case "disabled":
      return { state: state.kind, text: "$(circle-slash) Loop Sentinel: off", background: undefined,
        tooltip: `**Loop Sentinel is off.** Nothing is watched.\n\n[Turn on](command:${COMMANDS.toggleEnabled}) · ${settingsLink}` };
    case "no-host":
      return { state: state.kind, text: "$(eye-closed) Loop Sentinel", background: undefined,
        tooltip: `**Loop Sentinel: no agent host found.** Install or open Roo Code, Kilo Code or Cline to have its sessions watched.\n\n${hostLines}\n\n${panelLink} · ${settingsLink}` };
    case "watching":
      return { state: state.kind, text: `$(eye) Loop Sentinel: ${state.sessions}`, background: undefined,
        tooltip: `**Loop Sentinel: watching ${state.sessions} session${state.sessions === 1 ? "" : "s"}.** No loop right now.\n\n${hostLines}\n\n${panelLink} · ${settingsLink}` };
    case "warning":
    case "intervened": {
      const iv = state.latest.intervention;
      const head = state.kind === "warning" ? "$(warning) Loop suspected" : "$(debug-stop) Loop stopped";
      const what = ACTION_WORDS[iv.action] ?? iv.action;
      return {
        state: state.kind, text: head,
        background: state.kind === "warning" ? "statusBarItem.warningBackground" : "statusBarItem.errorBackground",
        tooltip: [
          `**${state.kind === "warning" ? "Loop suspected" : "Loop Sentinel intervened"}** in ${escapeMarkdown(state.latest.session.hostLabel)} task *${escapeMarkdown(state.latest.session.title)}*`,
          `${escapeMarkdown(iv.detectorTitle)}: ${escapeMarkdown(iv.summary)}`,
          `Loop Sentinel ${what}: ${escapeMarkdown(iv.outcome || "…")}`,
          `${panelLink} · [Reset](command:${COMMANDS.reset}) · ${settingsLink}`,
        ].join("\n\n"),
      };
    }
  }
}
