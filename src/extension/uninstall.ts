/**
 * Run by VS Code after the extension is uninstalled (`vscode:uninstall`, plain Node, no `vscode`):
 * removes Loop Sentinel's Cline PreToolUse hook. A hook the user wrote is left alone.
 */
import { uninstallHook } from "../hosts/cline/hookInstall";

try {
  for (const r of uninstallHook()) process.stdout.write(`${r.detail}\n`);
} catch (err) {
  process.stderr.write(`Loop Sentinel: could not remove the Cline hook: ${(err as Error).message}\n`);
}
