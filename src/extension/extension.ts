/**
 * Entry point. activate() only wires: log channel, settings, the session manager, the host
 * adapters, the status bar, the diagnostics panel and the commands. Nothing heavy runs here.
 */
import * as vscode from "vscode";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { createHostAdapters } from "../hosts/registry";
import { setupClineHook } from "./clineHookSetup";
import { setupAgentHook } from "./agentHookSetup";
import { COMMANDS, CONTEXT_KEYS, INTERNAL_COMMANDS } from "./commandIds";
import { TaskNotifier, toastFor, type Toast } from "./notifier";
import { CLINE_EXTENSION_ID } from "../hosts/cline/locations";
import { clineHookDirs, hookDirStatus } from "../hosts/cline/hookInstall";
import { DiagnosticsPanel, type RenderReport } from "./diagnosticsPanel";
import { SessionManager, type ConfirmAnswer, type InterventionRecord, type OverallState, type SessionSnapshot } from "./sessionManager";
import { readShellSettings, trustAwareReader } from "./settings";
import { SETTINGS_SECTION, USER_ONLY_SETTINGS } from "./settingsSchema";
import { settingsCommandFor } from "./settingsTab";
import { LoopStatusBar, type StatusBarView } from "./statusBar";
import { connectedHosts, registerOpencodeCommands, syncPluginSettings } from "./opencodeConnection";
import { offerWalkthroughOnce, registerWalkthroughCommands } from "./walkthrough";
import { setupStreamGuard, type StreamGuardSetup } from "./streamGuardSetup";
import type { StreamGuardAgent } from "./settings";

/** What the extension exports: read-only views, used by the integration tests and other extensions. */
export interface LoopSentinelApi {
  /** Wall time of activate() itself, in ms. */
  readonly activationMs: number;
  statusBar(): StatusBarView;
  overall(): OverallState;
  snapshots(): SessionSnapshot[];
  settingsWarnings(): readonly string[];
  /** Fires when the diagnostics webview has rendered a state. */
  readonly onDidRenderPanel: vscode.Event<RenderReport>;
  panelVisible(): boolean;
  /** Notifications: the ones open now and every one shown so far (one per task at a time). */
  notifications(): { open: Toast[]; waiting: Toast[]; shown: ReadonlyArray<{ sessionKey: string; text: string; at: number; replaced?: boolean }> };
  /** The context keys the palette's `when` clauses read, as last set. */
  contextKeys(): Readonly<Record<string, boolean>>;
  /** One-time offers shown in this window (the walkthrough, the Cline hook), oldest first. */
  offers(): readonly string[];
  /** The agents the stream guard guards now, each with its upstream and the guard's base URL. */
  streamGuard(): Array<{ agent: string; upstream: string; url: string }>;
}

/** Phases that raise a notification: a question, a failure, a strong action done, and warn-only's only signal. */
const NOTIFIED_PHASES = new Set<InterventionRecord["phase"]>(["asking", "failed", "done", "shown", "unavailable"]);

let active: { manager: SessionManager } | undefined;

export function activate(context: vscode.ExtensionContext): LoopSentinelApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel("Loop Sentinel", { log: true });
  context.subscriptions.push(log);

  let notificationsOn = true;
  // Each task's notification is a live one: a progress notification (the only kind whose text can be
  // replaced and which the extension can close), its actions links to an internal command.
  const showLive = (markdown: string, onClose: () => void) => {
    let update: ((m: string) => void) | undefined;
    let close: (() => void) | undefined;
    let closed = false;
    let latest = markdown;
    // Cancellable: its one button (VS Code's "Cancel") closes it, and a notification with a button is
    // shown expanded, so the action links in the text show whole.
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, cancellable: true }, (progress, token) => new Promise<void>((resolve) => {
      // increment 0: a determinate bar at nothing, so no endless spinner under a question.
      update = (m) => progress.report({ message: m, increment: 0 });
      close = resolve;
      token.onCancellationRequested(() => { resolve(); if (!closed) { closed = true; onClose(); } });
      if (closed) resolve(); else update(latest);
    }));
    return {
      update: (m: string) => { latest = m; update?.(m); },
      close: () => { closed = true; close?.(); },
    };
  };
  const linkFor = (sessionKey: string, version: number, pick: string) =>
    `command:${INTERNAL_COMMANDS.notificationPick}?${encodeURIComponent(JSON.stringify([sessionKey, version, pick])).replace(/\(/g, "%28").replace(/\)/g, "%29")}`;
  const notifier = new TaskNotifier(showLive, linkFor);
  context.subscriptions.push(notifier);
  const showDetails = (sessionKey: string) => DiagnosticsPanel.createOrShow(context.extensionUri, manager, panelDeps, sessionKey);
  const manager = new SessionManager({
    log: { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m), debug: (m) => log.debug(m) },
    confirm: async (session, _iv, record) => {
      // The question is the task's notification; with notifications off it waits in the panel and the status bar.
      if (!notificationsOn) return "later";
      const result = await notifier.notify(toastFor(session, record));
      if (result === "details") showDetails(session.key);
      return ({ main: "act", details: "later", closed: "dismiss", replaced: "superseded" } as const)[result] satisfies ConfirmAnswer;
    },
    notify: (session, record) => {
      if (!notificationsOn || !NOTIFIED_PHASES.has(record.phase)) return;
      // A warning the host confirmed is in the status bar and the panel; a toast is for stronger news
      // (unless the task's notification is open: then it moves on to this state, refreshTaskToasts()).
      if (record.phase === "done" && record.action === "warn") return;
      const remedy = record.phase === "unavailable" ? record.remedy?.offer : undefined;
      void notifier.notify(toastFor(session, record)).then((result) => {
        if (result === "details") showDetails(session.key);
        else if (result === "main" && remedy === "install-cline-hook") void vscode.commands.executeCommand(COMMANDS.installClineHook);
      });
    },
  });
  /** A task's open notification always says where its latest step stands now. */
  const refreshTaskToasts = () => {
    const open = notifier.openToasts();
    if (open.length === 0) return;
    const summaries = new Map(manager.summaries().map((s) => [s.key, s]));
    for (const toast of open) {
      const session = summaries.get(toast.sessionKey);
      const latest = session && manager.latestIntervention(toast.sessionKey);
      // Nothing of the task left, or its alert cleared (reset, your message): the notification has nothing to say.
      if (!session || !latest || session.alert === "none") { notifier.close(toast.sessionKey); continue; }
      // A question is shown by confirm() itself (its answer goes to the manager).
      if (latest.phase === "asking") continue;
      notifier.refresh(toastFor(session, latest));
    }
  };
  context.subscriptions.push(manager);
  active = { manager };

  // In a remote window the machine-scoped switches are on the Remote tab: open that one.
  const openSettings = async () => {
    const [command, args] = settingsCommandFor(vscode.env.remoteName, `@ext:${context.extension.id}`);
    await vscode.commands.executeCommand(command, args);
  };

  // Settings: applied now and live on every change; invalid values warn once and fall back.
  let warnings: string[] = [];
  let legacyLogged = false;
  let guardSettings: { enabled: boolean; agents: StreamGuardAgent[] } = { enabled: false, agents: [] };
  let streamGuard: StreamGuardSetup | undefined;
  const applySettings = () => {
    const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const settings = readShellSettings(trustAwareReader((key) => cfg.get(key), (key) => cfg.inspect(key), vscode.workspace.isTrusted));
    notificationsOn = settings.notifications;
    guardSettings = settings.streamGuard;
    // Detector settings under their names before issue 36 still count; said once in the log.
    if (settings.legacyRead.length && !legacyLogged) { legacyLogged = true; log.info(`settings read under their old names (they keep working; the Settings editor lists them under the detectors' names now): ${settings.legacyRead.join(", ")}`); }
    manager.configure({ engine: settings.engine, actionPolicy: settings.actionPolicy, hostPolicies: settings.hostPolicies });
    const changed = settings.warnings.join("\n") !== warnings.join("\n");
    warnings = settings.warnings;
    for (const w of warnings) log.warn(`setting ignored: ${w}`);
    if (changed && warnings.length > 0) {
      void vscode.window.showWarningMessage(`Loop Sentinel: ${warnings.length} setting(s) are invalid and use their defaults: ${warnings.join("; ")}`, "Open Settings")
        .then((pick) => { if (pick) void openSettings(); });
    }
  };
  applySettings();
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SETTINGS_SECTION)) { applySettings(); syncPluginSettings(log); void streamGuard?.apply(); log.info("settings applied"); }
  }));
  // Once the user trusts the workspace, its settings may tune thresholds.
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => { applySettings(); log.info("workspace trusted: settings applied"); }));

  const statusBar = new LoopStatusBar(manager);
  context.subscriptions.push(statusBar);

  // Context keys for the palette's `when` clauses: set only when a value changes.
  const keys: Record<string, boolean> = {};
  const setKey = (key: string, value: boolean) => {
    if (keys[key] === value) return;
    keys[key] = value;
    void vscode.commands.executeCommand("setContext", key, value);
  };
  const refreshFileKeys = () => {
    try { setKey(CONTEXT_KEYS.kiloConnected, connectedHosts().length > 0); } catch { setKey(CONTEXT_KEYS.kiloConnected, false); }
    try { setKey(CONTEXT_KEYS.clineHookInstalled, clineHookDirs().some((d) => hookDirStatus(d).state === "installed")); } catch { setKey(CONTEXT_KEYS.clineHookInstalled, false); }
  };
  const refreshKeys = () => {
    const cfg = manager.config;
    setKey(CONTEXT_KEYS.enabled, cfg.engine.enabled);
    setKey(CONTEXT_KEYS.warnOnly, cfg.engine.mode === "warnOnly");
    setKey(CONTEXT_KEYS.hasSessions, manager.summaries().length > 0);
    const hosts = manager.hostStatuses();
    setKey(CONTEXT_KEYS.clineFound, vscode.extensions.getExtension(CLINE_EXTENSION_ID) !== undefined || hosts.some((h) => h.hostId === "cline" && h.state !== "not-found"));
    setKey(CONTEXT_KEYS.kiloFound, vscode.extensions.getExtension("kilocode.kilo-code") !== undefined || hosts.some((h) => h.hostId === "kilo-code" && h.state !== "not-found") || keys[CONTEXT_KEYS.kiloConnected] === true);
  };
  refreshFileKeys();
  refreshKeys();
  streamGuard = setupStreamGuard(context, manager, (line) => log.info(line), () => guardSettings, setKey);
  context.subscriptions.push(streamGuard);
  // Off by default; on from an earlier session: started without holding up activation.
  void streamGuard.apply();
  // The manager changes on every streamed chunk: look again at most every 250 ms.
  let keysTimer: NodeJS.Timeout | undefined;
  const scheduleKeys = () => { keysTimer ??= setTimeout(() => { keysTimer = undefined; refreshKeys(); refreshTaskToasts(); }, 250); };
  context.subscriptions.push({ dispose: manager.onDidChange(scheduleKeys).dispose }, vscode.extensions.onDidChange(refreshKeys),
    { dispose: () => { if (keysTimer) clearTimeout(keysTimer); } });
  /** Runs a command's work, then brings the keys up to date (the hook and plugin files may have changed). */
  const thenRefresh = <A extends unknown[], R>(run: (...args: A) => R | Promise<R>) => async (...args: A): Promise<R> => {
    try { return await run(...args); } finally { refreshFileKeys(); refreshKeys(); }
  };

  const panelDeps = { openSettings };
  /** Asks for the text unless given (tests and other callers pass it). */
  const resumeWithGuidance = async (sessionKey: unknown, given?: unknown) => {
    if (typeof sessionKey !== "string") return { done: "no session given", ok: false };
    const snap = manager.snapshot(sessionKey);
    const last = snap?.interventions[snap.interventions.length - 1];
    // Empty, not prefilled with Loop Sentinel's own words: this message is yours, to the agent.
    const text = typeof given === "string" ? given : await vscode.window.showInputBox({
      title: "Resume with guidance",
      prompt: `Your message to the agent of “${snap?.title ?? sessionKey}”, which Loop Sentinel stopped; it answers the task's resume question.`,
      placeHolder: last ? `What to do instead of: ${last.summary}` : "What the agent should do next",
      ignoreFocusOut: true,
    });
    if (!text?.trim()) return { done: "nothing to send", ok: false };
    const outcome = await manager.resumeWithGuidance(sessionKey, text.trim());
    if (!outcome.ok) void vscode.window.showWarningMessage(`Loop Sentinel: could not send the guidance: ${outcome.done}`);
    return outcome;
  };
  context.subscriptions.push(DiagnosticsPanel.registerSerializer(context.extensionUri, manager, panelDeps));
  context.subscriptions.push({ dispose: () => DiagnosticsPanel.current()?.dispose() });

  const toggle = async (key: "enabled" | "mode", next: (current: unknown) => unknown) => {
    const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const info = cfg.inspect(key);
    // Write where the effective value comes from, or the change would be shadowed; the switches
    // the user alone decides (USER_ONLY_SETTINGS) are always user settings.
    const target = USER_ONLY_SETTINGS.has(key) ? vscode.ConfigurationTarget.Global : info?.workspaceFolderValue !== undefined ? vscode.ConfigurationTarget.WorkspaceFolder
      : info?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    const value = next(cfg.get(key));
    await cfg.update(key, value, target);
    log.info(`${SETTINGS_SECTION}.${key} set to ${JSON.stringify(value)}`);
    return value;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(COMMANDS.showDiagnostics, (sessionKey?: unknown) => {
      DiagnosticsPanel.createOrShow(context.extensionUri, manager, panelDeps, typeof sessionKey === "string" ? sessionKey : undefined);
    }),
    vscode.commands.registerCommand(COMMANDS.reset, () => {
      manager.reset();
      vscode.window.setStatusBarMessage("Loop Sentinel: detectors reset", 3000);
    }),
    vscode.commands.registerCommand(COMMANDS.configure, openSettings),
    vscode.commands.registerCommand(COMMANDS.toggleEnabled, () => setEnabled((v) => v === false)),
    vscode.commands.registerCommand(COMMANDS.turnOn, () => setEnabled(() => true)),
    vscode.commands.registerCommand(COMMANDS.turnOff, () => setEnabled(() => false)),
    vscode.commands.registerCommand(COMMANDS.toggleWarnOnly, () => setMode((v) => (v === "warnOnly" ? "intervene" : "warnOnly"))),
    vscode.commands.registerCommand(COMMANDS.warnOnlyOn, () => setMode(() => "warnOnly")),
    vscode.commands.registerCommand(COMMANDS.warnOnlyOff, () => setMode(() => "intervene")),
    vscode.commands.registerCommand(INTERNAL_COMMANDS.answer, (sessionKey: unknown, id: unknown, answer: unknown) =>
      typeof sessionKey === "string" && typeof id === "number" && (answer === "act" || answer === "dismiss" || answer === "ignore") && manager.answer(sessionKey, id, answer)),
    vscode.commands.registerCommand(COMMANDS.replay, async (target?: unknown) => replaySessionFile(target)),
    vscode.commands.registerCommand(INTERNAL_COMMANDS.resetSession, (sessionKey: unknown) => {
      if (typeof sessionKey === "string") manager.reset(sessionKey);
    }),
    vscode.commands.registerCommand(INTERNAL_COMMANDS.ignorePattern, (sessionKey: unknown, pattern: unknown) =>
      typeof sessionKey === "string" && typeof pattern === "string" && manager.ignore(sessionKey, pattern)),
    vscode.commands.registerCommand(INTERNAL_COMMANDS.resumeWithGuidance, resumeWithGuidance),
    vscode.commands.registerCommand(INTERNAL_COMMANDS.notificationPick, (sessionKey: unknown, version: unknown, pick: unknown) =>
      typeof sessionKey === "string" && typeof version === "number" && (pick === "main" || pick === "details" || pick === "close") && notifier.pick(sessionKey, version, pick)),
    vscode.commands.registerCommand(INTERNAL_COMMANDS.closeNotification, (sessionKey: unknown) => { if (typeof sessionKey === "string") notifier.close(sessionKey); }),
    ...registerOpencodeCommands(context, log, () => { refreshFileKeys(); refreshKeys(); }),
    ...registerWalkthroughCommands(context, {
      replay: (file) => replaySessionFile(file),
      setMode: (mode) => toggle("mode", () => mode),
      currentMode: () => (vscode.workspace.getConfiguration(SETTINGS_SECTION).get("mode") === "warnOnly" ? "warnOnly" : "intervene"),
    }),
  );

  async function setEnabled(next: (current: unknown) => boolean): Promise<unknown> {
    const value = await toggle("enabled", next);
    vscode.window.setStatusBarMessage(`Loop Sentinel ${value ? "on" : "off"}`, 3000);
    return value;
  }

  async function setMode(next: (current: unknown) => "warnOnly" | "intervene"): Promise<unknown> {
    const value = await toggle("mode", next);
    vscode.window.setStatusBarMessage(`Loop Sentinel: ${value === "warnOnly" ? "warn only" : "intervene"}`, 3000);
    return value;
  }

  async function replaySessionFile(target: unknown): Promise<string[]> {
    let file: string | undefined;
    if (target instanceof vscode.Uri) file = target.fsPath;
    else if (typeof target === "string") file = target;
    else {
      const picked = await vscode.window.showOpenDialog({
        title: "Replay a recorded session", openLabel: "Replay", canSelectFiles: true, canSelectFolders: true, canSelectMany: false,
      });
      file = picked?.[0]?.fsPath;
    }
    if (!file) return [];
    // Loaded on first use: the readers are not needed to activate.
    const { readSessions } = await import("../formats");
    let sessions;
    try {
      sessions = readSessions([file], { lenient: true });
    } catch (err) {
      log.error(`replay ${file}: ${(err as Error).message}`);
      void vscode.window.showErrorMessage(`Loop Sentinel could not replay ${path.basename(file)}: ${(err as Error).message}`);
      return [];
    }
    if (sessions.length === 0) {
      void vscode.window.showWarningMessage(`Loop Sentinel found no session in ${path.basename(file)}.`);
      return [];
    }
    const keys = sessions.map((s) => manager.addReplay(path.basename(s.file), s.events));
    for (const s of sessions) log.info(`replayed ${s.file} (${s.format}, ${s.events.length} events${s.skipped ? `, ${s.skipped} skipped` : ""})`);
    DiagnosticsPanel.createOrShow(context.extensionUri, manager, panelDeps, keys[0]);
    return keys;
  }

  const adapters = createHostAdapters({
    log: (line) => log.info(line),
    globalStorageRoot: path.dirname(context.globalStorageUri.fsPath),
    stateDir: context.globalStorageUri.fsPath,
    mayIntervene: () => manager.config.engine.enabled && manager.config.engine.mode !== "warnOnly",
    extensionInstalled: (id) => vscode.extensions.getExtension(id) !== undefined,
  });
  manager.addAdapters(adapters);
  const offers: string[] = [];
  context.subscriptions.push(setupClineHook(context, manager, (line) => log.info(line), thenRefresh, (text) => offers.push(text)));
  offerWalkthroughOnce(context, (text) => offers.push(text));
  context.subscriptions.push(setupAgentHook(context, (line) => log.info(line)));
  log.info(`hosts: ${adapters.length ? adapters.map((a) => a.label).join(", ") : "no host adapter available"}`);

  const activationMs = performance.now() - started;
  log.info(`Loop Sentinel ${context.extension.packageJSON.version} activated in ${activationMs.toFixed(1)} ms`);

  return {
    activationMs,
    statusBar: () => statusBar.current(),
    overall: () => manager.overall(),
    snapshots: () => manager.snapshots(),
    settingsWarnings: () => warnings,
    onDidRenderPanel: DiagnosticsPanel.onDidRender,
    panelVisible: () => DiagnosticsPanel.current()?.visible ?? false,
    notifications: () => ({ open: notifier.openToasts(), waiting: notifier.waitingToasts(), shown: notifier.shown }),
    contextKeys: () => ({ ...keys }),
    offers: () => [...offers],
    streamGuard: () => streamGuard?.host.guarded() ?? [],
  };
}

export function deactivate(): void {
  // Everything is in context.subscriptions; this only drops the module's reference early.
  active?.manager.dispose();
  active = undefined;
}
