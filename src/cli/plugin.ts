/**
 * `loop-sentinel install-plugin --opencode|--kilo [--project DIR]` and `remove-plugin`: puts the
 * plugin that guards OpenCode-based agents (opencode, Kilo Code 7 and its CLI) into their plugin
 * folder, or takes it out. The agent loads it at its next start.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { HOST_LABEL, installPlugin, pluginFolder, PLUGIN_HOSTS, removePlugin, type PluginHost } from "../hosts/opencode/install";
import { reportFilePath, settingsFilePath } from "../hosts/opencode/settingsFile";
import { flag, parseArgs, UsageError } from "./args";
import type { CliIO } from "./io";
import { quoted } from "../engine/printable";

export const INSTALL_PLUGIN_USAGE = "install-plugin --opencode|--kilo [--project DIR]";
export const REMOVE_PLUGIN_USAGE = "remove-plugin --opencode|--kilo [--project DIR]";

/** The bundle beside the CLI's own file (both are in dist/). */
export function bundledPlugin(): string {
  return path.join(__dirname, "opencode-plugin.js");
}

function targets(argv: string[], usage: string): { hosts: PluginHost[]; project?: string } {
  const args = parseArgs(argv, ["project"], [...PLUGIN_HOSTS]);
  if (args.positionals.length) throw new UsageError(`unexpected argument ${quoted(args.positionals[0])}`);
  const hosts = PLUGIN_HOSTS.filter((h) => args.flags.has(h));
  if (hosts.length === 0) throw new UsageError(`say which agent: --opencode, --kilo or both\nusage: loop-sentinel ${usage}`);
  return { hosts, project: flag(args, "project") };
}

export function runInstallPlugin(argv: string[], io: CliIO, bundle = bundledPlugin()): number {
  const { hosts, project } = targets(argv, INSTALL_PLUGIN_USAGE);
  if (!fs.existsSync(bundle)) throw new UsageError(`plugin bundle not found at ${bundle} (run npm run build)`);
  let failures = 0;
  for (const host of hosts) {
    const folder = pluginFolder(host, { project });
    try {
      const r = installPlugin(bundle, folder);
      io.out(`${HOST_LABEL[host]}: ${r.previous ? `replaced Loop Sentinel ${r.previous} in` : "installed"} ${r.file}; restart ${host} to load it`);
    } catch (err) {
      failures++;
      io.err(`${HOST_LABEL[host]}: ${(err as Error).message}`);
    }
  }
  io.out(`settings: ${settingsFilePath()} (the extension writes it; defaults when absent)\nreport:   ${reportFilePath()}`);
  return failures ? 1 : 0;
}

export function runRemovePlugin(argv: string[], io: CliIO): number {
  const { hosts, project } = targets(argv, REMOVE_PLUGIN_USAGE);
  for (const host of hosts) {
    const r = removePlugin(pluginFolder(host, { project }));
    io.out(`${HOST_LABEL[host]}: ${r.removed ? `removed ${r.file}; restart ${host} to unload it` : `no Loop Sentinel plugin at ${r.file}`}`);
  }
  return 0;
}
