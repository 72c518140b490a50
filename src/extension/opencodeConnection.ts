/**
 * Kilo Code 7 (and opencode) run their agent in a server of their own, out of the extension host's
 * reach: Loop Sentinel guards them with a plugin inside that server. These commands put the plugin
 * into the agents' global plugin folders on the user's consent and take it out again; while it is
 * installed, the user's `loopSentinel.*` settings are mirrored into the file the plugin reads.
 */
import * as vscode from "vscode";
import { detectorsFromLeaves } from "./settings";
import { LEGACY_DETECTORS_KEY } from "./settingsSchema";
import * as fs from "node:fs";
import * as path from "node:path";
import { HOST_LABEL, installedVersion, installPlugin, pluginFolder, PLUGIN_HOSTS, removePlugin, type PluginHost } from "../hosts/opencode/install";
import { reportFilePath, settingsFilePath, writeSettingsFile } from "../hosts/opencode/settingsFile";
import { COMMANDS } from "./commandIds";
import { SETTINGS_SECTION } from "./settingsSchema";

interface Log { info(m: string): void; warn(m: string): void }

/** Agents whose global plugin folder holds our plugin now. */
export function connectedHosts(): PluginHost[] {
  return PLUGIN_HOSTS.filter((h) => installedVersion(pluginFolder(h)) !== undefined);
}

/** Mirrors the settings into the plugin's file, when a plugin is there to read it. */
export function syncPluginSettings(log: Log): void {
  if (connectedHosts().length === 0) return;
  const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  try {
    // Only what the user set: the plugin has the same defaults, and a newer plugin may have better ones.
    const setValue = (key: string) => { const info = cfg.inspect(key); return info?.globalValue ?? info?.workspaceValue ?? info?.workspaceFolderValue; };
    writeSettingsFile(settingsFilePath(), (key) => (key === LEGACY_DETECTORS_KEY ? detectorsFromLeaves(setValue) : setValue(key)));
  } catch (err) {
    log.warn(`could not write ${settingsFilePath()} for the Kilo / opencode plugin: ${(err as Error).message}`);
  }
}

/** `changed`: called after connect or disconnect ran (the palette shows the other one then). */
export function registerOpencodeCommands(context: vscode.ExtensionContext, log: Log, changed: () => void = () => {}): vscode.Disposable[] {
  const bundle = path.join(context.extensionPath, "dist", "opencode-plugin.js");

  const connect = async (given?: unknown): Promise<PluginHost[]> => {
    let hosts: PluginHost[];
    if (Array.isArray(given)) hosts = PLUGIN_HOSTS.filter((h) => given.includes(h));
    else {
      const folders = PLUGIN_HOSTS.map((h) => pluginFolder(h)).join(" and ");
      const pick = await vscode.window.showInformationMessage(
        "Connect Kilo Code?",
        { modal: true, detail: `Kilo Code 7 runs its agent in a server of its own. Loop Sentinel will write its plugin (${path.basename(bundle)}, the same engine) into ${pluginFolder("kilo")}, where that server loads it at its next start; it then refuses repeated calls, aborts looping responses and stops looping sessions there, following your Loop Sentinel settings. “Kilo and opencode” also writes it into ${pluginFolder("opencode")}. Disconnect removes it again (${folders}).` },
        "Connect Kilo Code", "Kilo and opencode");
      if (!pick) return [];
      hosts = pick === "Connect Kilo Code" ? ["kilo"] : ["kilo", "opencode"];
    }
    const done: PluginHost[] = [];
    for (const h of hosts) {
      try {
        const r = installPlugin(bundle, pluginFolder(h));
        log.info(`${HOST_LABEL[h]}: ${r.previous ? `replaced plugin ${r.previous} in` : "installed plugin in"} ${r.file}`);
        done.push(h);
      } catch (err) {
        log.warn(`${HOST_LABEL[h]}: could not install the plugin: ${(err as Error).message}`);
        void vscode.window.showErrorMessage(`Loop Sentinel could not connect ${HOST_LABEL[h]}: ${(err as Error).message}`);
      }
    }
    if (done.length) {
      syncPluginSettings(log);
      void vscode.window.showInformationMessage(`Loop Sentinel's plugin is in place. Restart ${done.map((h) => h === "kilo" ? "Kilo Code (reload the window)" : "opencode").join(" and ")} to load it. Its report: ${reportFilePath()}`);
    }
    return done;
  };

  const disconnect = (): PluginHost[] => {
    const removed = PLUGIN_HOSTS.filter((h) => removePlugin(pluginFolder(h)).removed);
    for (const h of removed) log.info(`${HOST_LABEL[h]}: removed the plugin from ${pluginFolder(h)}`);
    void vscode.window.showInformationMessage(removed.length
      ? `Loop Sentinel's plugin removed from ${removed.map((h) => HOST_LABEL[h]).join(" and ")}; it stops at their next start.`
      : "Loop Sentinel's plugin was not installed in Kilo Code or opencode.");
    return removed;
  };

  // A plugin left by an older Loop Sentinel is brought up to this version (the user consented once).
  for (const h of connectedHosts()) {
    if (installedVersion(pluginFolder(h)) !== context.extension.packageJSON.version && fs.existsSync(bundle)) {
      try { installPlugin(bundle, pluginFolder(h)); log.info(`${HOST_LABEL[h]}: plugin updated to ${context.extension.packageJSON.version}`); } catch { /* reported when connecting */ }
    }
  }
  syncPluginSettings(log);

  return [
    vscode.commands.registerCommand(COMMANDS.connectKilo, async (given?: unknown) => { try { return await connect(given); } finally { changed(); } }),
    vscode.commands.registerCommand(COMMANDS.disconnectKilo, () => { try { return disconnect(); } finally { changed(); } }),
  ];
}
