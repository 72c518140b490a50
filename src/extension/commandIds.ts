/** Command ids, in one place: package.json contributes them, the UI links to them. */
export const COMMANDS = {
  showDiagnostics: "loopSentinel.showDiagnostics",
  reset: "loopSentinel.resetDetectors",
  configure: "loopSentinel.configure",
  toggleEnabled: "loopSentinel.toggleEnabled",
  toggleWarnOnly: "loopSentinel.toggleWarnOnly",
  turnOn: "loopSentinel.turnOn",
  turnOff: "loopSentinel.turnOff",
  warnOnlyOn: "loopSentinel.switchToWarnOnly",
  warnOnlyOff: "loopSentinel.switchToIntervening",
  replay: "loopSentinel.replaySession",
  connectKilo: "loopSentinel.connectKilo",
  disconnectKilo: "loopSentinel.disconnectKilo",
  installClineHook: "loopSentinel.installClineHook",
  removeClineHook: "loopSentinel.removeClineHook",
  openWalkthrough: "loopSentinel.openWalkthrough",
  replayExample: "loopSentinel.replayExample",
  chooseMode: "loopSentinel.chooseMode",
  installAgentHook: "loopSentinel.installAgentHook",
  removeAgentHook: "loopSentinel.removeAgentHook",
  streamGuardOn: "loopSentinel.turnOnStreamGuard",
  streamGuardOff: "loopSentinel.turnOffStreamGuard",
} as const;

/** Titles as shown in the Command Palette (category "Loop Sentinel"). */
export const COMMAND_TITLES: Record<keyof typeof COMMANDS, string> = {
  showDiagnostics: "Show Diagnostics",
  reset: "Reset Detectors",
  configure: "Configure",
  toggleEnabled: "Toggle Enabled",
  toggleWarnOnly: "Toggle Warn-Only",
  turnOn: "Turn On",
  turnOff: "Turn Off",
  warnOnlyOn: "Switch to Warn-Only (show loops, never act)",
  warnOnlyOff: "Switch to Intervening (act on loops)",
  replay: "Replay Session File…",
  connectKilo: "Connect Kilo Code",
  disconnectKilo: "Disconnect Kilo Code",
  installClineHook: "Install Cline Hook (refuse looping tool calls)",
  removeClineHook: "Remove Cline Hook",
  openWalkthrough: "Get Started",
  replayExample: "Try on an Example Session",
  chooseMode: "Choose Warn-Only or Intervene…",
  installAgentHook: "Install Hook for Claude Code, Copilot CLI, Codex, Gemini CLI or Qwen Code…",
  removeAgentHook: "Remove Hook from Claude Code, Copilot CLI, Codex, Gemini CLI or Qwen Code…",
  streamGuardOn: "Turn On the Stream Guard (cut looping answers mid-stream)…",
  streamGuardOff: "Turn Off the Stream Guard",
};

/**
 * When each palette command shows (package.json menus.commandPalette, written by gen-settings):
 * only the direction of a pair that applies, only for an agent that is there. Absent: always.
 * The two toggles stay registered for keybindings but leave the palette to the titled pairs.
 */
export const COMMAND_WHEN: Partial<Record<keyof typeof COMMANDS, string>> = {
  reset: "loopSentinel.hasSessions",
  toggleEnabled: "false",
  toggleWarnOnly: "false",
  turnOn: "!loopSentinel.enabled",
  turnOff: "loopSentinel.enabled",
  // "Choose Warn-Only or Intervene…" is the one palette command for the mode: the two switches did
  // the same job under other names (they stay registered for keybindings).
  warnOnlyOn: "false",
  warnOnlyOff: "false",
  connectKilo: "loopSentinel.kiloFound && !loopSentinel.kiloConnected",
  disconnectKilo: "loopSentinel.kiloConnected",
  installClineHook: "loopSentinel.clineFound && !loopSentinel.clineHookInstalled && !isWindows",
  removeClineHook: "loopSentinel.clineHookInstalled",
  removeAgentHook: "loopSentinel.agentHookInstalled",
  streamGuardOn: "!loopSentinel.streamGuardOn",
  streamGuardOff: "loopSentinel.streamGuardOn",
};

/** Commands behind the panel's buttons: not in the Command Palette (they need a session). */
export const INTERNAL_COMMANDS = {
  resetSession: "loopSentinel.resetSession",
  ignorePattern: "loopSentinel.ignorePattern",
  resumeWithGuidance: "loopSentinel.resumeWithGuidance",
  /** Answers an open question: (sessionKey, interventionId, "act" | "dismiss" | "ignore"). */
  answer: "loopSentinel.answerIntervention",
  /** A link in a task's notification: (sessionKey, the text's version, "main" | "details" | "close"). */
  notificationPick: "loopSentinel.notificationPick",
  /** Closes a task's notification (sessionKey). */
  closeNotification: "loopSentinel.closeNotification",
} as const;

/** The walkthrough (contributed by package.json), opened from the empty panel and the no-agent tooltip. */
export const WALKTHROUGH_ID = "loop-sentinel.loop-sentinel#loopSentinel.gettingStarted";

/** Context keys that show each palette command only where it applies (package.json `when` clauses). */
export const CONTEXT_KEYS = {
  enabled: "loopSentinel.enabled",
  warnOnly: "loopSentinel.warnOnly",
  kiloFound: "loopSentinel.kiloFound",
  kiloConnected: "loopSentinel.kiloConnected",
  clineFound: "loopSentinel.clineFound",
  clineHookInstalled: "loopSentinel.clineHookInstalled",
  hasSessions: "loopSentinel.hasSessions",
  streamGuardOn: "loopSentinel.streamGuardOn",
} as const;
