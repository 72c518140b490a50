/**
 * Loop Sentinel's Cline PreToolUse hook in the extension: installed only with the user's consent
 * (the palette command, or the offer made once when Cline is first found), refreshed on each
 * activation so it runs this version's script, removed by the remove command, when the last
 * window running Loop Sentinel deactivates (extension disabled) and on uninstall
 * (`vscode:uninstall`). A hook the user wrote is never touched (hookInstall.ts).
 */
import * as vscode from "vscode";
import { clineHookDirs, hookDirStatus, installHook, SCRIPT_NAME, uninstallHook, type HookDirStatus } from "../hosts/cline/hookInstall";
import { channelDir, listEndpoints } from "../hosts/cline/hookProtocol";
import { CLINE_EXTENSION_ID } from "../hosts/cline/locations";
import { COMMANDS } from "./commandIds";
import type { SessionManager } from "./sessionManager";

/** "installed": the user asked for the hook ("chained": in place of their own, which it runs); "declined": never offer again. */
const CONSENT_KEY = "loopSentinel.clineHook.consent";
type Consent = "installed" | "chained" | "declined" | undefined;
const OFFER_LOOK_MS = 5_000;

function describe(report: HookDirStatus[]): string {
  return report.map((r) => r.detail).join("; ");
}

/** Wraps a command's handler (the extension refreshes its palette context keys after it). */
type Wrap = <A extends unknown[], R>(run: (...args: A) => R | Promise<R>) => (...args: A) => Promise<R>;

/** The offer, in what the user gets; "found Cline" only when the extension is there, not for a task folder alone. */
export function clineHookOffer(extensionInstalled: boolean): string {
  const found = extensionInstalled ? "Cline is installed." : "Loop Sentinel watches Cline's task files.";
  return `${found} Cline cannot be stopped from outside in the middle of a task. With a small hook that Cline runs before each tool call, ` +
    "Loop Sentinel can refuse a call that repeats a loop and add its advice to the result the model reads. " +
    "The hook asks this window and lets every call through when Loop Sentinel is not running. Install it?";
}

/** Set when the offer was shown: "Not Now" or closing it never brings it back at the next reload (the palette command stays). */
const OFFERED_KEY = "loopSentinel.clineHook.offered";

export function setupClineHook(context: vscode.ExtensionContext, manager: SessionManager, log: (line: string) => void, wrap: Wrap = (run) => async (...args) => run(...args),
  told: (text: string) => void = () => {}): vscode.Disposable {
  const script = context.asAbsolutePath(`dist/${SCRIPT_NAME}`);
  const consent = () => context.globalState.get<Consent>(CONSENT_KEY);
  const install = (chain = consent() === "chained"): HookDirStatus[] => {
    const report = installHook({ script, nodePath: process.execPath, chain });
    log(`Cline hook: ${describe(report)}`);
    return report;
  };

  // The user asked for it earlier: bring it back (a disable removed it) or refresh it to this version.
  if (consent() === "installed" || consent() === "chained") {
    try { install(); } catch (err) { log(`Cline hook: could not refresh it: ${(err as Error).message}`); }
  }

  const disposables: vscode.Disposable[] = [];
  disposables.push(
    vscode.commands.registerCommand(COMMANDS.installClineHook, wrap(async (options?: { chain?: boolean }) => {
      let chain = options?.chain ?? consent() === "chained";
      const theirs = clineHookDirs().filter((d) => hookDirStatus(d).state === "user-hook");
      if (theirs.length && options?.chain === undefined && !chain) {
        const pick = await vscode.window.showWarningMessage(
          `You have a PreToolUse hook of your own in ${theirs.join(", ")}. Classic Cline runs one file of that name per folder. ` +
          "Chain: Loop Sentinel's hook takes its place and runs yours, unchanged, on every call (removing Loop Sentinel's puts yours back).",
          { modal: true }, "Chain", "Skip That Folder");
        if (pick === undefined) return [];
        chain = pick === "Chain";
      }
      let report: HookDirStatus[];
      try { report = install(chain); } catch (err) {
        void vscode.window.showErrorMessage(`Loop Sentinel could not install the Cline hook: ${(err as Error).message}`);
        return [];
      }
      await context.globalState.update(CONSENT_KEY, chain ? "chained" : "installed");
      const skipped = report.filter((r) => r.state !== "installed");
      if (skipped.length) void vscode.window.showWarningMessage(`Loop Sentinel: ${describe(report)}`);
      else void vscode.window.showInformationMessage(`Loop Sentinel: the Cline hook is installed; from now on a tool call that repeats a loop is refused before it runs (${report.map((r) => r.dir).join(", ")}).`);
      return report;
    })),
    vscode.commands.registerCommand(COMMANDS.removeClineHook, wrap(async () => {
      const report = uninstallHook();
      await context.globalState.update(CONSENT_KEY, "declined");
      log(`Cline hook: ${describe(report)}`);
      void vscode.window.showInformationMessage(`Loop Sentinel: ${describe(report)}`);
      return report;
    })),
  );

  // The offer, once, the first time Cline shows up.
  let offered = false;
  let lastLook = 0;
  const maybeOffer = () => {
    if (offered || consent() !== undefined || context.globalState.get<boolean>(OFFERED_KEY) || process.platform === "win32") return; // Cline wants PreToolUse.ps1 there: not supported yet
    // The manager changes with every event of every task: look for Cline now and then only.
    const now = Date.now();
    if (now - lastLook < OFFER_LOOK_MS) return;
    lastLook = now;
    const cline = manager.hostStatuses().find((h) => h.hostId === "cline");
    if (!cline || cline.state === "not-found") return;
    offered = true;
    if (clineHookDirs().some((d) => hookDirStatus(d).state === "installed")) return; // installed from the CLI
    // A task's loop notification offers the hook where it is needed: this general offer is then moot.
    if (manager.snapshots().some((s) => s.hostId === "cline" && s.interventions.some((r) => r.remedy?.offer === "install-cline-hook"))) return;
    void context.globalState.update(OFFERED_KEY, true);
    const text = clineHookOffer(vscode.extensions.getExtension(CLINE_EXTENSION_ID) !== undefined);
    told(text);
    void vscode.window.showInformationMessage(
      text,
      "Install Hook", "Not Now", "Never",
    ).then(async (pick) => {
      if (pick === "Install Hook") await vscode.commands.executeCommand(COMMANDS.installClineHook);
      else if (pick === "Never") await context.globalState.update(CONSENT_KEY, "declined");
    });
  };
  disposables.push(manager.onDidChange(maybeOffer));

  return {
    dispose: () => {
      for (const d of disposables) d.dispose();
      // Disabled (or the last window closed): remove it unless another window still answers it;
      // the next activation puts it back from the recorded consent.
      if (consent() !== "installed" && consent() !== "chained") return;
      const others = listEndpoints(channelDir(), (line) => log(line)).filter((e) => e.pid !== process.pid && alive(e.pid));
      if (others.length === 0) {
        try { log(`Cline hook: ${describe(uninstallHook())}`); } catch { /* best effort on the way out */ }
      }
    },
  };
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === "EPERM"; }
}
