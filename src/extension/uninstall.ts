/**
 * Run by VS Code after Loop Sentinel is uninstalled (`vscode:uninstall`, plain Node, no `vscode`):
 * takes out what it put into other agents, so nothing of it keeps running there. Only our own files
 * are removed: a Cline hook the user wrote stays, and so do the settings file and the report.
 */
import { uninstallHook } from "../hosts/cline/hookInstall";
import { pluginFolder, PLUGIN_HOSTS, removePlugin } from "../hosts/opencode/install";
import { uninstallAllAgentHooks } from "../hosts/hookAgents/install";
import { restoreOrphans } from "../hosts/streamGuard/pointing";

// Kilo Code's and opencode's global plugin folders.
for (const host of PLUGIN_HOSTS) {
  try { removePlugin(pluginFolder(host)); } catch { /* nothing to report to: VS Code runs this unattended */ }
}

// Cline's PreToolUse hook.
try {
  for (const r of uninstallHook()) process.stdout.write(`${r.detail}\n`);
} catch (err) {
  process.stderr.write(`Loop Sentinel: could not remove the Cline hook: ${(err as Error).message}\n`);
}

// Claude Code's, Copilot CLI's and Codex's hook: every settings file goes back as it was.
try {
  for (const r of uninstallAllAgentHooks()) process.stdout.write(`${r.detail}\n`);
} catch (err) {
  process.stderr.write(`Loop Sentinel: could not remove the agents' hook: ${(err as Error).message}\n`);
}

// The stream guard's pointing of Claude Code and Codex at it (normally put back when VS Code closes).
try {
  for (const r of restoreOrphans(process.env, true)) process.stdout.write(`${r.detail}\n`);
} catch (err) {
  process.stderr.write(`Loop Sentinel: could not put the agents' endpoints back: ${(err as Error).message}\n`);
}
