/**
 * Run by VS Code (in plain Node) after Loop Sentinel is uninstalled: takes its plugin out of Kilo
 * Code's and opencode's global plugin folders, so nothing of it keeps running inside those agents.
 * Only our own file is removed; the settings file and the report stay (they are the user's).
 */
import { pluginFolder, PLUGIN_HOSTS, removePlugin } from "../hosts/opencode/install";

for (const host of PLUGIN_HOSTS) {
  try { removePlugin(pluginFolder(host)); } catch { /* nothing to report to: VS Code runs this unattended */ }
}
