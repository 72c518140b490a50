/** Kilo Code 7 and opencode in the extension: the sessions their Loop Sentinel plugin reports. */
import type { HostAdapter, HostEnvironment } from "../hostAdapter";
import { installedVersion, pluginFolder, PLUGIN_HOSTS } from "./install";
import { PluginReportAdapter } from "./reportAdapter";
import { reportFilePath } from "./settingsFile";

export function createOpencodePluginAdapters(env: HostEnvironment): HostAdapter[] {
  return [new PluginReportAdapter({
    reportFile: reportFilePath(),
    installedIn: () => PLUGIN_HOSTS.map((h) => pluginFolder(h)).filter((f) => installedVersion(f) !== undefined),
    log: env.log,
  })];
}
