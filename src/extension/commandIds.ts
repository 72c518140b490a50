/** Command ids, in one place: package.json contributes them, the UI links to them. */
export const COMMANDS = {
  showDiagnostics: "loopSentinel.showDiagnostics",
  reset: "loopSentinel.resetDetectors",
  configure: "loopSentinel.configure",
  toggleEnabled: "loopSentinel.toggleEnabled",
  toggleWarnOnly: "loopSentinel.toggleWarnOnly",
  replay: "loopSentinel.replaySession",
  connectKilo: "loopSentinel.connectKilo",
  disconnectKilo: "loopSentinel.disconnectKilo",
  installClineHook: "loopSentinel.installClineHook",
  removeClineHook: "loopSentinel.removeClineHook",
  installAgentHook: "loopSentinel.installAgentHook",
  removeAgentHook: "loopSentinel.removeAgentHook",
} as const;

/** Titles as shown in the Command Palette (category "Loop Sentinel"). */
export const COMMAND_TITLES: Record<keyof typeof COMMANDS, string> = {
  showDiagnostics: "Show Diagnostics",
  reset: "Reset Detectors",
  configure: "Configure",
  toggleEnabled: "Toggle Enabled",
  toggleWarnOnly: "Toggle Warn-Only",
  replay: "Replay Session File…",
  connectKilo: "Connect Kilo Code",
  disconnectKilo: "Disconnect Kilo Code",
  installClineHook: "Install Cline Hook (refuse looping tool calls)",
  removeClineHook: "Remove Cline Hook",
  installAgentHook: "Install Hook for Claude Code, Copilot CLI or Codex…",
  removeAgentHook: "Remove Hook from Claude Code, Copilot CLI or Codex…",
};

/** Commands behind the panel's buttons: not in the Command Palette (they need a session). */
export const INTERNAL_COMMANDS = {
  resetSession: "loopSentinel.resetSession",
  ignorePattern: "loopSentinel.ignorePattern",
  resumeWithGuidance: "loopSentinel.resumeWithGuidance",
} as const;
