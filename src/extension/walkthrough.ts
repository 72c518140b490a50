/**
 * The first hour: the Get Started walkthrough (package.json `contributes.walkthroughs`), the
 * example session it replays, and the choice between warning only and intervening.
 */
import * as vscode from "vscode";
import { COMMANDS } from "./commandIds";
import { EXAMPLE_SESSION, WALKTHROUGH_ID } from "./walkthroughIds";


type Mode = "intervene" | "warnOnly";

const MODE_CHOICES: ReadonlyArray<vscode.QuickPickItem & { mode: Mode }> = [
  { mode: "intervene", label: "Intervene", detail: "Warn the agent, then refuse repeated calls or cut off looping answers, then stop the task." },
  { mode: "warnOnly", label: "Warn only", detail: "Show what it finds here; never send anything to the agent or touch its task." },
];

export interface WalkthroughDeps {
  /** Replays a session file into the diagnostics panel; resolves with the replayed sessions' keys. */
  replay(file: vscode.Uri): Promise<string[]>;
  /** Writes loopSentinel.mode where the user's choice takes effect. */
  setMode(mode: Mode): Promise<unknown>;
  currentMode(): Mode;
}

export function registerWalkthroughCommands(context: vscode.ExtensionContext, deps: WalkthroughDeps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(COMMANDS.openWalkthrough, async () => {
      await vscode.commands.executeCommand("workbench.action.openWalkthrough", `${context.extension.id}#${WALKTHROUGH_ID}`, false);
    }),
    vscode.commands.registerCommand(COMMANDS.replayExample, () => deps.replay(vscode.Uri.joinPath(context.extensionUri, EXAMPLE_SESSION))),
    // A mode given (a test, a link) is set at once; otherwise the user picks, the current one first.
    vscode.commands.registerCommand(COMMANDS.chooseMode, async (given?: unknown) => {
      let mode: Mode | undefined = given === "intervene" || given === "warnOnly" ? given : undefined;
      if (!mode) {
        const current = deps.currentMode();
        const items = [...MODE_CHOICES].sort((a, b) => Number(b.mode === current) - Number(a.mode === current))
          .map((c) => ({ ...c, description: c.mode === current ? "current" : undefined }));
        mode = (await vscode.window.showQuickPick(items, { title: "What may Loop Sentinel do when it finds a loop?" }))?.mode;
      }
      if (!mode) return undefined;
      await deps.setMode(mode);
      vscode.window.setStatusBarMessage(`Loop Sentinel: ${mode === "warnOnly" ? "warn only" : "intervene"}`, 3000);
      return mode;
    }),
  ];
}

/** Set once the walkthrough was offered: it is offered on the first start only, never again. */
export const WALKTHROUGH_OFFERED_KEY = "loopSentinel.walkthrough.offered";
export const WALKTHROUGH_OFFER = "Loop Sentinel is on: it watches your coding agents' tasks and stops them looping. New here? Get Started shows what is watched and replays an example loop.";

/** On the first start only: offers the walkthrough in a notification (recorded before it shows, so a reload never brings it back). */
export function offerWalkthroughOnce(context: vscode.ExtensionContext, told: (text: string) => void): void {
  if (context.globalState.get<boolean>(WALKTHROUGH_OFFERED_KEY)) return;
  void context.globalState.update(WALKTHROUGH_OFFERED_KEY, true);
  told(WALKTHROUGH_OFFER);
  void vscode.window.showInformationMessage(WALKTHROUGH_OFFER, "Get Started").then((pick) => {
    if (pick) void vscode.commands.executeCommand(COMMANDS.openWalkthrough);
  });
}
