/**
 * Entry point. activate() only wires: log channel, settings, the session manager, the host
 * adapters, the status bar, the diagnostics panel and the commands. Nothing heavy runs here.
 */
import * as vscode from "vscode";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import type { Intervention } from "../engine/session";
import { createHostAdapters } from "../hosts/registry";
import { setupClineHook } from "./clineHookSetup";
import { setupAgentHook } from "./agentHookSetup";
import { COMMANDS, INTERNAL_COMMANDS } from "./commandIds";
import { DiagnosticsPanel, type RenderReport } from "./diagnosticsPanel";
import { SessionManager, type ConfirmAnswer, type OverallState, type SessionSnapshot, type SessionSummary } from "./sessionManager";
import { readShellSettings, trustAwareReader } from "./settings";
import { SETTINGS_SECTION, USER_ONLY_SETTINGS } from "./settingsSchema";
import { LoopStatusBar, type StatusBarView } from "./statusBar";
import { registerOpencodeCommands, syncPluginSettings } from "./opencodeConnection";

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
}

const ACTION_VERBS: Record<Intervention["action"], string> = { warn: "Send guidance", block: "Refuse the call", abort: "Abort the response", stop: "Stop the task" };
/** Notifications per session are limited to one per pattern. */
const MAX_NOTIFIED_KEYS = 256;

let active: { manager: SessionManager } | undefined;

export function activate(context: vscode.ExtensionContext): LoopSentinelApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel("Loop Sentinel", { log: true });
  context.subscriptions.push(log);

  let notificationsOn = true;
  const notified = new Set<string>();
  const manager = new SessionManager({
    log: { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m), debug: (m) => log.debug(m) },
    confirm: (session, iv) => confirmIntervention(session, iv),
    notify: (session, iv, outcome) => {
      if (!notificationsOn) return;
      const id = `${session.key}\u0000${iv.key}\u0000${iv.action}`;
      if (notified.has(id)) return;
      if (notified.size >= MAX_NOTIFIED_KEYS) notified.clear();
      notified.add(id);
      const text = `Loop Sentinel (${session.hostLabel}): ${iv.summary} — ${outcome}`;
      const show = iv.action === "warn" ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
      void show(text, "Show Diagnostics").then((pick) => {
        if (pick) DiagnosticsPanel.createOrShow(context.extensionUri, manager, panelDeps, session.key);
      });
    },
  });
  context.subscriptions.push(manager);
  active = { manager };

  const openSettings = async () => { await vscode.commands.executeCommand("workbench.action.openSettings", SETTINGS_SECTION); };

  // Settings: applied now and live on every change; invalid values warn once and fall back.
  let warnings: string[] = [];
  const applySettings = () => {
    const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const settings = readShellSettings(trustAwareReader((key) => cfg.get(key), (key) => cfg.inspect(key), vscode.workspace.isTrusted));
    notificationsOn = settings.notifications;
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
    if (e.affectsConfiguration(SETTINGS_SECTION)) { applySettings(); syncPluginSettings(log); log.info("settings applied"); }
  }));
  // Once the user trusts the workspace, its settings may tune thresholds.
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => { applySettings(); log.info("workspace trusted: settings applied"); }));

  const statusBar = new LoopStatusBar(manager);
  context.subscriptions.push(statusBar);

  const panelDeps = { openSettings };
  /** Asks for the text unless given (tests and other callers pass it). */
  const resumeWithGuidance = async (sessionKey: unknown, given?: unknown) => {
    if (typeof sessionKey !== "string") return { done: "no session given", ok: false };
    const snap = manager.snapshot(sessionKey);
    const last = snap?.interventions[snap.interventions.length - 1];
    const text = typeof given === "string" ? given : await vscode.window.showInputBox({
      title: "Resume with guidance",
      prompt: `Message sent to the agent of “${snap?.title ?? sessionKey}”; it answers a stopped task's resume question.`,
      value: last?.message ?? "",
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
    vscode.commands.registerCommand(COMMANDS.toggleEnabled, async () => {
      const value = await toggle("enabled", (v) => v === false);
      vscode.window.setStatusBarMessage(`Loop Sentinel ${value ? "on" : "off"}`, 3000);
      return value;
    }),
    vscode.commands.registerCommand(COMMANDS.toggleWarnOnly, async () => {
      const value = await toggle("mode", (v) => (v === "warnOnly" ? "intervene" : "warnOnly"));
      vscode.window.setStatusBarMessage(`Loop Sentinel: ${value === "warnOnly" ? "warn only" : "intervene"}`, 3000);
      return value;
    }),
    vscode.commands.registerCommand(COMMANDS.replay, async (target?: unknown) => replaySessionFile(target)),
    vscode.commands.registerCommand(INTERNAL_COMMANDS.resetSession, (sessionKey: unknown) => {
      if (typeof sessionKey === "string") manager.reset(sessionKey);
    }),
    vscode.commands.registerCommand(INTERNAL_COMMANDS.ignorePattern, (sessionKey: unknown, pattern: unknown) =>
      typeof sessionKey === "string" && typeof pattern === "string" && manager.ignore(sessionKey, pattern)),
    vscode.commands.registerCommand(INTERNAL_COMMANDS.resumeWithGuidance, resumeWithGuidance),
    ...registerOpencodeCommands(context, log),
  );

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

  async function confirmIntervention(session: SessionSummary, iv: Intervention): Promise<ConfirmAnswer> {
    const act = ACTION_VERBS[iv.action];
    const pick = await vscode.window.showWarningMessage(
      `Loop Sentinel (${session.hostLabel}, “${session.title}”): ${iv.summary}. ${act}?`,
      act, "Ignore this pattern", "Dismiss");
    return pick === act ? "act" : pick === "Ignore this pattern" ? "ignore" : "dismiss";
  }

  const adapters = createHostAdapters({
    log: (line) => log.info(line),
    globalStorageRoot: path.dirname(context.globalStorageUri.fsPath),
    mayIntervene: () => manager.config.engine.enabled && manager.config.engine.mode !== "warnOnly",
  });
  manager.addAdapters(adapters);
  context.subscriptions.push(setupClineHook(context, manager, (line) => log.info(line)));
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
  };
}

export function deactivate(): void {
  // Everything is in context.subscriptions; this only drops the module's reference early.
  active?.manager.dispose();
  active = undefined;
}
