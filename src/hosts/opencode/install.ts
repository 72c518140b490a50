/**
 * Puts the bundled plugin (dist/opencode-plugin.js) into an OpenCode-based agent's plugin folder,
 * and takes it out again. Used by `loop-sentinel install-plugin` / `remove-plugin` and the
 * extension's "Connect Kilo Code" command; the agent loads it at its next start.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export type PluginHost = "opencode" | "kilo";
export const PLUGIN_HOSTS: readonly PluginHost[] = ["opencode", "kilo"];
export const HOST_LABEL: Record<PluginHost, string> = { opencode: "opencode", kilo: "Kilo Code (7.x and its CLI)" };

/** The file name in the plugin folder; only a file of this name that is ours is ever removed. */
export const PLUGIN_FILE_NAME = "loop-sentinel.js";
/** First line of the bundle (scripts/build.mjs): identifies our file and its version. */
export const PLUGIN_MARKER = "// loop-sentinel opencode plugin";

type Env = Record<string, string | undefined>;

/** `~/.config/<host>/plugin` (XDG_CONFIG_HOME respected), or `<project>/.<host>/plugin`. */
export function pluginFolder(host: PluginHost, options: { project?: string; env?: Env } = {}): string {
  if (options.project !== undefined) return path.join(path.resolve(options.project), `.${host}`, "plugin");
  const env = options.env ?? process.env;
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config"), host, "plugin");
}

/** The version an installed file of ours carries, or undefined when the file is absent or not ours. */
export function installedVersion(folder: string): string | undefined {
  let head: string;
  try { head = fs.readFileSync(path.join(folder, PLUGIN_FILE_NAME), "utf8").slice(0, 200); } catch { return undefined; }
  if (!head.startsWith(PLUGIN_MARKER)) return undefined;
  return head.slice(PLUGIN_MARKER.length).split("\n")[0].trim() || "unknown";
}

export interface InstallResult { file: string; previous?: string }

/** Copies the bundle in (replacing an older copy of ours); refuses to overwrite someone else's file. */
export function installPlugin(bundle: string, folder: string): InstallResult {
  const text = fs.readFileSync(bundle, "utf8");
  if (!text.startsWith(PLUGIN_MARKER)) throw new Error(`${bundle} is not the Loop Sentinel plugin bundle`);
  const file = path.join(folder, PLUGIN_FILE_NAME);
  const previous = installedVersion(folder);
  if (previous === undefined && fs.existsSync(file)) throw new Error(`${file} exists and is not Loop Sentinel's plugin; not replaced`);
  fs.mkdirSync(folder, { recursive: true });
  // Written aside and renamed: an agent starting meanwhile never loads half a file.
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text);
  fs.renameSync(temp, file);
  return { file, previous };
}

/** Removes our file; says whether there was one. Leaves a foreign file of the same name alone. */
export function removePlugin(folder: string): { file: string; removed: boolean } {
  const file = path.join(folder, PLUGIN_FILE_NAME);
  if (installedVersion(folder) === undefined) return { file, removed: false };
  fs.rmSync(file, { force: true });
  return { file, removed: true };
}
