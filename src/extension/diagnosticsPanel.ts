/**
 * The diagnostics webview: one panel, per session a live timeline, detector states and the
 * interventions with their evidence. The extension sends snapshots; the webview (media/panel.js)
 * only renders them and sends back the user's actions. Restored after a reload by a serializer.
 */
import * as vscode from "vscode";
import * as crypto from "node:crypto";
import type { SessionManager, SessionSnapshot, SessionSummary } from "./sessionManager";
import { COMMANDS, INTERNAL_COMMANDS, WALKTHROUGH_ID } from "./commandIds";
import { detectorViews, distinctTitles, emptyStateText, interventionView, loopCards, loopViews, modeWords, type DetectorView, type FigureCard, type InterventionView, type LoopView } from "./panelWords";
import { stateWords } from "./stateWords";

/** Messages to the webview. */
export type ToWebview = {
  type: "state";
  /** `state`: the latest intervention's state in words, for the session selector. */
  sessions: Array<SessionSummary & { alert: SessionSnapshot["alert"]; state?: string }>;
  selected: string | undefined;
  session: (Omit<SessionSnapshot, "interventions" | "detectors"> & { interventions: InterventionView[]; detectors: DetectorView[]; loopCards: FigureCard[]; loops: LoopView[] }) | undefined;
  settings: { enabled: boolean; mode: string; actionPolicy: string };
  /** The header's mode line in words ("Cline: asks you before acting"). */
  modeText: string;
  /** Agents found (any state but not installed), and whether none is: the empty state says so. */
  hosts: { found: string[]; watching: string[] };
  /** The empty state's text (no session yet). */
  emptyText: string;
};

/** Messages from the webview. */
export type FromWebview =
  | { type: "ready"; selected?: string }
  | ({ type: "rendered" } & RenderReport)
  | { type: "select"; key: string }
  | { type: "reset"; key: string }
  | { type: "ignore"; key: string; pattern: string }
  | { type: "resume"; key: string }
  | { type: "answer"; key: string; id: number; answer: "act" | "dismiss" }
  | { type: "replayFile" }
  | { type: "walkthrough" }
  | { type: "installClineHook" }
  | { type: "openSettings" };

/** What the webview reports it drew, counted from its DOM. */
export interface RenderReport {
  selected?: string;
  timelineEntries: number;
  interventions: number;
  /** Timeline rows highlighted as a loop's evidence. */
  flaggedEntries: number;
  /** Repeated text spans highlighted in the interventions. */
  highlightedSpans: number;
  detectorRows: number;
  /** Text drawn, in words, by class: the suite compares it with the status bar and notifications. */
  texts?: { badges: string[]; sentences: string[]; mode: string; empty?: string; buttons: string[]; cards: string[] };
  /** Elements with aria-live in the document: one small region, never the whole panel. */
  liveRegions?: number;
  /** Lowest text contrast measured from the rendered colours, and the worst few places. */
  contrast?: { min: number; count: number; worst: Array<{ text: string; ratio: number; fg: string; bg: string; where: string }> };
  /** Vertical scroll of the page when drawn (a new session opens at the top). */
  scrollTop?: number;
  /** Whether the header fits on its rows without cutting the session name. */
  headerFits?: boolean;
  /** The live region's text after this render (only what changed). */
  announced?: string;
  /** The id of the element holding keyboard focus after this render (kept across live updates). */
  focused?: string;
}

/** Snapshots are sent at most this often while events stream in. */
const POST_INTERVAL_MS = 150;

export class DiagnosticsPanel implements vscode.Disposable {
  static readonly viewType = "loopSentinel.diagnostics";
  private static instance: DiagnosticsPanel | undefined;
  private static readonly renderedEmitter = new vscode.EventEmitter<RenderReport>();
  /** Fires each time the webview reports it has rendered a state (tests wait for it). */
  static readonly onDidRender = DiagnosticsPanel.renderedEmitter.event;

  private selected: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private webviewReady = false;

  static current(): DiagnosticsPanel | undefined { return DiagnosticsPanel.instance; }

  static createOrShow(extensionUri: vscode.Uri, manager: SessionManager, deps: PanelDeps, select?: string): DiagnosticsPanel {
    const existing = DiagnosticsPanel.instance;
    if (existing) {
      if (select) existing.select(select);
      existing.panel.reveal(existing.panel.viewColumn ?? vscode.ViewColumn.Active);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(DiagnosticsPanel.viewType, "Loop Sentinel", vscode.ViewColumn.Active, webviewOptions(extensionUri));
    DiagnosticsPanel.instance = new DiagnosticsPanel(panel, extensionUri, manager, deps, select);
    return DiagnosticsPanel.instance;
  }

  static registerSerializer(extensionUri: vscode.Uri, manager: SessionManager, deps: PanelDeps): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(DiagnosticsPanel.viewType, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
        panel.webview.options = webviewOptions(extensionUri);
        const selected = typeof (state as { selected?: unknown })?.selected === "string" ? (state as { selected: string }).selected : undefined;
        DiagnosticsPanel.instance?.dispose();
        DiagnosticsPanel.instance = new DiagnosticsPanel(panel, extensionUri, manager, deps, selected);
      },
    });
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly manager: SessionManager,
    private readonly deps: PanelDeps,
    selected: string | undefined,
  ) {
    this.selected = selected;
    panel.iconPath = vscode.Uri.joinPath(extensionUri, "media", "icon.png");
    panel.webview.html = this.html();
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((m: FromWebview) => this.onMessage(m)),
      panel.onDidChangeViewState(() => { if (panel.visible) this.post(); }),
    );
    const sub = manager.onDidChange(() => this.schedule());
    this.disposables.push({ dispose: () => sub.dispose() });
  }

  get visible(): boolean { return this.panel.visible; }

  select(key: string): void {
    this.selected = key;
    this.post();
  }

  private schedule(): void {
    if (this.timer || !this.panel.visible || !this.webviewReady) return;
    this.timer = setTimeout(() => { this.timer = undefined; this.post(); }, POST_INTERVAL_MS);
  }

  private post(): void {
    if (!this.webviewReady) return;
    // Only the shown session is snapshotted in full: the others are a line in the selector.
    const summaries = this.manager.summaries();
    if (!this.selected || !summaries.some((s) => s.key === this.selected)) this.selected = summaries[0]?.key;
    const snap = this.selected ? this.manager.snapshot(this.selected) : undefined;
    const cfg = this.manager.config;
    const hosts = this.manager.hostStatuses();
    const latestWords = (key: string) => {
      const last = key === snap?.key ? snap.interventions[snap.interventions.length - 1] : this.manager.latestIntervention(key);
      return last && !last.ignored ? stateWords(last.phase, last.action).short : undefined;
    };
    const titles = distinctTitles(summaries);
    const message: ToWebview = {
      type: "state",
      sessions: summaries.map((s) => ({ key: s.key, hostId: s.hostId, hostLabel: s.hostLabel, taskId: s.taskId, title: titles.get(s.key) ?? s.title, replay: s.replay, alert: s.alert, state: s.alert === "none" ? undefined : latestWords(s.key) })),
      selected: this.selected,
      session: snap && { ...snap, title: titles.get(snap.key) ?? snap.title, interventions: snap.interventions.map(interventionView), detectors: detectorViews(snap, (id) => cfg.engine.detectors[id as keyof typeof cfg.engine.detectors], cfg.engine.mode === "warnOnly"),
        loopCards: loopCards(snap), loops: loopViews(snap.interventions) },
      settings: { enabled: cfg.engine.enabled, mode: cfg.engine.mode, actionPolicy: cfg.actionPolicy },
      modeText: modeWords({ enabled: cfg.engine.enabled, mode: cfg.engine.mode, actionPolicy: cfg.actionPolicy, hostPolicies: cfg.hostPolicies }, snap),
      hosts: { found: hosts.filter((h) => h.state !== "not-found").map((h) => h.label), watching: hosts.filter((h) => h.state === "watching").map((h) => h.label) },
      emptyText: "",
    };
    message.emptyText = emptyStateText(message.hosts);
    void this.panel.webview.postMessage(message);
  }

  private onMessage(m: FromWebview): void {
    switch (m?.type) {
      case "ready":
        this.webviewReady = true;
        if (m.selected && !this.selected) this.selected = m.selected;
        this.post();
        break;
      case "rendered":
        DiagnosticsPanel.renderedEmitter.fire({
          selected: m.selected, timelineEntries: m.timelineEntries, interventions: m.interventions,
          flaggedEntries: m.flaggedEntries, highlightedSpans: m.highlightedSpans, detectorRows: m.detectorRows,
          texts: m.texts, liveRegions: m.liveRegions, contrast: m.contrast, scrollTop: m.scrollTop, headerFits: m.headerFits, announced: m.announced, focused: m.focused,
        });
        break;
      case "answer":
        void vscode.commands.executeCommand(INTERNAL_COMMANDS.answer, m.key, m.id, m.answer);
        break;
      case "replayFile":
        void vscode.commands.executeCommand(COMMANDS.replay);
        break;
      case "installClineHook":
        void vscode.commands.executeCommand(COMMANDS.installClineHook);
        break;
      case "walkthrough":
        void vscode.commands.executeCommand("workbench.action.openWalkthrough", WALKTHROUGH_ID, false);
        break;
      case "select":
        this.select(m.key);
        break;
      // The buttons run the same (internal) commands the integration tests drive.
      case "reset":
        void vscode.commands.executeCommand(INTERNAL_COMMANDS.resetSession, m.key);
        break;
      case "ignore":
        void vscode.commands.executeCommand(INTERNAL_COMMANDS.ignorePattern, m.key, m.pattern);
        break;
      case "resume":
        void vscode.commands.executeCommand(INTERNAL_COMMANDS.resumeWithGuidance, m.key);
        break;
      case "openSettings":
        void this.deps.openSettings();
        break;
    }
  }

  private html(): string {
    const webview = this.panel.webview;
    const nonce = crypto.randomBytes(16).toString("base64");
    const media = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, "media", f)).toString();
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource}; img-src ${webview.cspSource}; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${media("panel.css")}">
<title>Loop Sentinel</title>
</head>
<body>
<main id="app"><p class="muted">Loading…</p></main>
<div id="announce" class="sr-only" role="status" aria-live="polite" aria-atomic="true"></div>
<script nonce="${nonce}" src="${media("panel.js")}"></script>
</body>
</html>`;
  }

  dispose(): void {
    if (DiagnosticsPanel.instance === this) DiagnosticsPanel.instance = undefined;
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}

export interface PanelDeps {
  openSettings(): Promise<void>;
}

function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, "media")], retainContextWhenHidden: false };
}
