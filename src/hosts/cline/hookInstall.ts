/**
 * Installs and removes Loop Sentinel's `PreToolUse` hook in Cline's global hooks folder. Plain Node
 * (the extension's command and `loop-sentinel cline-hook` share it). Never touches a hook the user
 * wrote: a folder that already has a `PreToolUse` of someone else is left alone and reported.
 *
 * Where Cline looks (read in its source, checked with the real CLIs):
 * - SDK core (extension v4, CLI 3.x): `~/Documents/Cline/Hooks`, `~/.cline/hooks` and the
 *   workspace's `.clinerules/hooks`, `.cline/hooks`; every file named `PreToolUse` (optionally with
 *   a script extension) runs, one after the other, 120 s limit.
 * - classic core (extension v3, CLI 2.x): `<Documents>/Cline/Hooks` and `.clinerules/hooks`, only
 *   the file named exactly `PreToolUse` (Windows: `PreToolUse.ps1`), run through the shell, 30 s
 *   limit. On Linux `<Documents>` is `xdg-user-dir DOCUMENTS`, which is the home folder itself
 *   when no XDG user folders are set up (so `~/Cline/Hooks`).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { writeFileAtomic } from "../atomicFile";
import * as os from "node:os";
import * as path from "node:path";

export const HOOK_FILE = "PreToolUse";
/** Marks the installed file as ours: only a file with this line is ever replaced or removed. */
export const HOOK_MARKER = "# loop-sentinel-cline-hook";
/** Folder beside the hook file holding the script it runs (Cline ignores folders there). */
export const SUPPORT_DIR = ".loop-sentinel";
export const SCRIPT_NAME = "cline-hook.js";
/** The user's own PreToolUse, kept here when Loop Sentinel's runs in its place and calls it. */
export const CHAINED_NAME = "PreToolUse.chained";

export type HookDirState = "installed" | "absent" | "user-hook";

/** Installed in place of the user's hook, which it runs first (the user's file is kept, byte for byte). */
function chainedFile(dir: string): string { return path.join(dir, SUPPORT_DIR, CHAINED_NAME); }

export interface HookDirStatus { dir: string; state: HookDirState; detail: string }

/** Cline's global hook folders on this machine, the SDK's first. */
export function clineHookDirs(env: NodeJS.ProcessEnv = process.env, home = env.HOME || os.homedir(), documents = documentsDir(env, home)): string[] {
  const dirs = [path.join(home, "Documents", "Cline", "Hooks"), path.join(documents, "Cline", "Hooks")];
  return [...new Set(dirs.map((d) => path.resolve(d)))];
}

/** The folder classic Cline calls Documents (its `getDocumentsPath`). */
export function documentsDir(env: NodeJS.ProcessEnv = process.env, home = env.HOME || os.homedir()): string {
  if (process.platform === "linux") {
    try {
      const out = execFileSync("xdg-user-dir", ["DOCUMENTS"], { env, encoding: "utf8", timeout: 2_000, stdio: ["ignore", "pipe", "ignore"] }).trim();
      if (out) return out;
    } catch { /* not installed: Cline falls back the same way */ }
  }
  return path.join(home, "Documents");
}

function isOurs(file: string): boolean {
  try { return fs.readFileSync(file, "utf8").split("\n", 3).some((l) => l.trim() === HOOK_MARKER); } catch { return false; }
}

export function hookDirStatus(dir: string): HookDirStatus {
  const file = path.join(dir, HOOK_FILE);
  if (!fs.existsSync(file)) return { dir, state: "absent", detail: `no ${HOOK_FILE} hook in ${dir}` };
  if (isOurs(file)) {
    const chained = fs.existsSync(chainedFile(dir));
    return { dir, state: "installed", detail: `Loop Sentinel's hook is installed in ${dir}${chained ? ", running your own PreToolUse alongside" : ""}` };
  }
  return {
    dir, state: "user-hook",
    detail: `${file} is a hook you (or another tool) installed; classic Cline runs only one file of that name per folder, so Loop Sentinel left it alone. ` +
      `Install with chaining to keep it: Loop Sentinel's hook then takes its place and runs it, unchanged, on every call (removing Loop Sentinel's puts it back).`,
  };
}

/** The shell file Cline runs; it starts the bundled script with `node` on PATH, else the given runtime. */
export function hookFileText(nodePath: string): string {
  const quoted = `'${nodePath.replace(/'/g, `'\\''`)}'`;
  return [
    "#!/bin/sh",
    HOOK_MARKER,
    "# Installed by Loop Sentinel: asks it whether this tool call repeats a loop; lets the call through when nothing answers.",
    "# Remove with the command \"Loop Sentinel: Remove Cline Hook\" or `loop-sentinel cline-hook uninstall`.",
    `script="\${0%/*}/${SUPPORT_DIR}/${SCRIPT_NAME}"`,
    // Node on PATH starts faster than an editor's own runtime; the recorded one is the fallback.
    `node="$(command -v node)"`,
    `if [ -z "$node" ] && [ -x ${quoted} ]; then node=${quoted}; fi`,
    `if [ -z "$node" ] || [ ! -f "$script" ]; then echo '{"cancel":false}'; exit 0; fi`,
    `ELECTRON_RUN_AS_NODE=1 exec "$node" "$script"`,
    "",
  ].join("\n");
}

export interface InstallOptions {
  /** dist/cline-hook.js of this Loop Sentinel. */
  script: string;
  /** The Node to run it with (the extension host's, or the CLI's). */
  nodePath?: string;
  dirs?: string[];
  /** Where the user has a PreToolUse of their own: move it aside and run it from ours. */
  chain?: boolean;
}

/** Installs (or refreshes) the hook in each folder that has no hook of the user's. */
export function installHook(o: InstallOptions): HookDirStatus[] {
  if (process.platform === "win32") return (o.dirs ?? clineHookDirs()).map((dir) => ({ dir, state: "absent" as const, detail: "the Cline hook is not available on Windows yet (Cline runs PreToolUse.ps1 there)" }));
  const code = fs.readFileSync(o.script);
  return (o.dirs ?? clineHookDirs()).map((dir) => {
    const before = hookDirStatus(dir);
    if (before.state === "user-hook" && !o.chain) return before;
    fs.mkdirSync(path.join(dir, SUPPORT_DIR), { recursive: true });
    writeFileAtomic(path.join(dir, SUPPORT_DIR, SCRIPT_NAME), code, 0o644);
    if (before.state === "user-hook") {
      if (fs.existsSync(chainedFile(dir))) return { ...before, detail: `${chainedFile(dir)} already exists: not moving ${path.join(dir, HOOK_FILE)} over it` };
      fs.renameSync(path.join(dir, HOOK_FILE), chainedFile(dir)); // rename keeps the file as it is, mode included
    }
    writeFileAtomic(path.join(dir, HOOK_FILE), hookFileText(o.nodePath ?? process.execPath), 0o755);
    const chained = fs.existsSync(chainedFile(dir)) ? ", running your own PreToolUse alongside" : "";
    return { dir, state: "installed", detail: `${before.state === "installed" ? "refreshed" : "installed"} Loop Sentinel's hook in ${dir}${chained}` };
  });
}

/** Removes our hook from each folder; a user's hook is never touched. */
export function uninstallHook(dirs: string[] = clineHookDirs()): HookDirStatus[] {
  return dirs.map((dir) => {
    const before = hookDirStatus(dir);
    if (before.state !== "installed") return before;
    if (fs.existsSync(chainedFile(dir))) {
      // The user's own hook goes back where it was.
      fs.renameSync(chainedFile(dir), path.join(dir, HOOK_FILE));
      fs.rmSync(path.join(dir, SUPPORT_DIR), { recursive: true, force: true });
      return { dir, state: "user-hook", detail: `removed Loop Sentinel's hook from ${dir} and put your own PreToolUse back` };
    }
    fs.rmSync(path.join(dir, HOOK_FILE), { force: true });
    fs.rmSync(path.join(dir, SUPPORT_DIR), { recursive: true, force: true });
    return { dir, state: "absent", detail: `removed Loop Sentinel's hook from ${dir}` };
  });
}

