/** The status bar loop indicator: one item, its text, colour and tooltip follow the manager's overall state. */
import * as vscode from "vscode";
import type { SessionManager } from "./sessionManager";
import { COMMANDS, INTERNAL_COMMANDS } from "./commandIds";
import { describeState, type StatusBarView } from "./statusView";

export type { StatusBarView } from "./statusView";

export class LoopStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscription: { dispose(): void };
  private view: StatusBarView;

  constructor(private readonly manager: SessionManager) {
    this.item = vscode.window.createStatusBarItem("loopSentinel.status", vscode.StatusBarAlignment.Left, 100);
    this.item.name = "Loop Sentinel";
    this.item.command = COMMANDS.showDiagnostics;
    this.view = this.render();
    this.item.show();
    this.subscription = manager.onDidChange(() => this.render());
  }

  private render(): StatusBarView {
    const view = describeState(this.manager.overall());
    // Every event fires onDidChange: touch the item only when what it shows changes.
    if (this.view && view.text === this.view.text && view.tooltip === this.view.tooltip && view.background === this.view.background) return this.view;
    this.item.text = view.text;
    const tooltip = new vscode.MarkdownString(view.tooltip, true);
    tooltip.isTrusted = { enabledCommands: [...Object.values(COMMANDS), INTERNAL_COMMANDS.answer] };
    this.item.tooltip = tooltip;
    this.item.backgroundColor = view.background ? new vscode.ThemeColor(view.background) : undefined;
    this.item.accessibilityInformation = { label: view.label, role: "button" };
    this.view = view;
    return view;
  }

  current(): StatusBarView { return this.view; }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
