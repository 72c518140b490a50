/**
 * `loop-sentinel cline-hook install|uninstall|status [--hooks-dir DIR] [--chain]`: puts Loop
 * Sentinel's PreToolUse hook into Cline's global hooks folder (or the given ones), for the Cline CLI
 * guarded by `loop-sentinel watch`. A folder holding the user's own PreToolUse is skipped, or with
 * `--chain` ours takes its place and runs it. The extension offers the same through its commands.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { clineHookDirs, hookDirStatus, installHook, uninstallHook, SCRIPT_NAME, type HookDirStatus } from "../hosts/cline/hookInstall";
import { parseArgs, UsageError } from "./args";
import type { CliIO } from "./io";
import { quoted } from "../engine/printable";

export const CLINE_HOOK_USAGE = "cline-hook install|uninstall|status [--hooks-dir DIR]... [--chain]";

export function runClineHook(argv: string[], io: CliIO): number {
  const args = parseArgs(argv, ["hooks-dir"], ["chain"]);
  const [verb, ...extra] = args.positionals;
  if (extra.length) throw new UsageError(`unexpected argument ${quoted(extra[0])}`);
  const dirs = args.flags.get("hooks-dir")?.map((d) => path.resolve(d)) ?? clineHookDirs();
  let report: HookDirStatus[];
  switch (verb) {
    case "install": {
      const script = path.join(__dirname, SCRIPT_NAME);
      if (!fs.existsSync(script)) { io.err(`loop-sentinel cline-hook: ${script} is missing (run \`npm run build\`)`); return 1; }
      report = installHook({ script, nodePath: process.execPath, dirs, chain: args.flags.has("chain") });
      break;
    }
    case "uninstall": report = uninstallHook(dirs); break;
    case "status": report = dirs.map(hookDirStatus); break;
    default: throw new UsageError(`expected install, uninstall or status\nusage: loop-sentinel ${CLINE_HOOK_USAGE}`);
  }
  for (const r of report) io.out(r.detail);
  return verb === "install" && report.some((r) => r.state !== "installed") ? 1 : 0;
}
