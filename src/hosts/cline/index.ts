/**
 * The Cline host for the extension: Cline exports no events, so its task files are the feed
 * (ClineWatcher, plain Node) and its four-function API carries the actions (ClineActions).
 * Loop Sentinel's PreToolUse hook, when the user installed it, asks this window over the local
 * channel (HookServer) and is answered from the same engine sessions (ClineGuard).
 * This file is the only Cline part that touches `vscode`: finding the extension, its data folders
 * and the optional `loopSentinel.cline.dataFolders` setting.
 */
import * as vscode from "vscode";
import type { Intervention } from "../../engine/session";
import { HostEvents, type Remedy, type ActionOutcome, type HostAdapter, type HostEnvironment, type HostStatus } from "../hostAdapter";
import { ClineActions, isClineApi, type ClineApi } from "./actions";
import { ClineGuard } from "./guard";
import { HookServer } from "./hookChannel";
import { clineHookDirs, hookDirStatus } from "./hookInstall";
import { channelDir } from "./hookProtocol";
import { CLINE_EXTENSION_ID, clineDataRoots } from "./locations";
import { ClineWatcher, taskFoldersOf } from "./watcher";
import { clineRemedy } from "./remedy";

/** Tasks that changed this long before we started are history (a reload mid-task still counts). */
const START_GRACE_MS = 60_000;
/** How often to look again for the Cline extension's API while it is not active. */
const API_RETRY_MS = 5_000;

class ClineAdapter extends HostEvents implements HostAdapter {
  readonly hostId = "cline";
  readonly label = "Cline";
  private watcher: ClineWatcher | undefined;
  private guard: ClineGuard | undefined;
  private hookServer: HookServer | undefined;
  private hookDirs: string[] | undefined;
  private readonly actions: ClineActions;
  private api: ClineApi | undefined;
  private apiTimer: NodeJS.Timeout | undefined;
  private readonly liveTasks = new Set<string>();
  private current: HostStatus = { hostId: "cline", label: "Cline", state: "inactive", detail: "starting", sessions: 0 };

  constructor(private readonly env: HostEnvironment) {
    super();
    this.actions = new ClineActions({
      api: () => this.api,
      snapshot: (id) => this.watcher?.snapshot(id),
      currentTaskId: () => this.watcher?.latestTaskId(),
      log: (l) => env.log(l),
    });
  }

  async start(): Promise<void> {
    try {
      // The user's own setting only: a workspace must not point the watcher at folders of its choosing.
      const extra = vscode.workspace.getConfiguration("loopSentinel").inspect<unknown>("cline.dataFolders")?.globalValue;
      const custom = Array.isArray(extra) ? extra.filter((x): x is string => typeof x === "string" && x.trim() !== "") : [];
      const roots = clineDataRoots(this.env.globalStorageRoot, process.env, custom);
      this.guard = new ClineGuard({
        feed: (taskId, event, origin) => {
          let caused: Intervention[] = [];
          this.eventEmitter.fire({ hostId: this.hostId, taskId, title: origin?.title, event, onInterventions: (ivs) => { caused = ivs; } });
          if (!this.liveTasks.has(taskId)) { this.liveTasks.add(taskId); this.refreshStatus(); }
          return caused;
        },
        catchUp: () => this.watcher?.poll(),
        knowsTask: (id) => this.watcher?.hasTask(id) ?? false,
        mayAct: () => this.env.mayIntervene?.() ?? true,
      });
      this.watcher = new ClineWatcher({
        roots,
        historyBefore: Date.now() - START_GRACE_MS,
        isEcho: (taskId, text) => this.actions.isEcho(taskId, text),
        onEvent: (e) => this.guard?.onWatcherEvent(e),
        onTaskChange: (taskId) => { void this.actions.onTaskChange(taskId); },
        onError: (m) => this.env.log(`Cline: ${m}`),
      });
      this.watcher.start();
      this.findApi();
      void this.serveHook();
      this.refreshStatus();
    } catch (err) {
      this.setStatus("error", `could not watch Cline's task files: ${(err as Error).message}`);
    }
  }

  /** Answers Loop Sentinel's PreToolUse hook (installed or not: it costs a listening socket). */
  private async serveHook(): Promise<void> {
    const server = new HookServer({
      dir: channelDir(),
      answer: (q) => {
        const reply = this.guard ? this.guard.decide(q) : { known: false, action: "allow" as const };
        if (reply.action !== "allow") this.env.log(`Cline task ${q.taskId}: PreToolUse hook answered ${reply.action} for ${q.toolName}`);
        return reply;
      },
      onError: (m) => this.env.log(`Cline: ${m}`),
    });
    try {
      await server.listen();
      this.hookServer = server;
    } catch (err) {
      this.env.log(`Cline: ${(err as Error).message}. The PreToolUse hook lets every call through until then`);
    }
    this.refreshStatus();
  }

  /** Cline's exports appear once it has activated; look again now and then until they do. */
  private findApi(): void {
    const ext = vscode.extensions.getExtension(CLINE_EXTENSION_ID);
    if (ext?.isActive && isClineApi(ext.exports)) this.api = ext.exports;
    else if (ext?.isActive) this.env.log(`Cline ${ext.packageJSON?.version ?? ""} is active but its API has an unexpected shape: watching only, no actions`);
    if (!this.api) this.apiTimer = setTimeout(() => { this.findApi(); this.refreshStatus(); }, API_RETRY_MS);
  }

  private refreshStatus(): void {
    const installed = vscode.extensions.getExtension(CLINE_EXTENSION_ID) !== undefined;
    const folders = this.watcher?.existingFolders() ?? [];
    if (!installed && folders.length === 0) { this.setStatus("not-found", "Cline is not installed and no Cline task folder was found"); return; }
    if (folders.length === 0) { this.setStatus("inactive", "Cline is installed but has no task folder yet"); return; }
    const actions = this.api ? "actions through Cline's API" : "watching only until Cline's API is active";
    const engines = this.engineNames(folders);
    const hook = this.hookDetail();
    this.setStatus("watching", `${engines} in ${folders.join(", ")}; ${actions}; ${hook}`);
  }

  /** Which of Cline's two engines the found folders belong to (4.1.x ships both in one VSIX). */
  private engineNames(folders: string[]): string {
    const layouts = new Set(folders.flatMap((f) => taskFoldersOf(f).map((t) => t.layout)));
    const names: string[] = [];
    if (layouts.has("classic")) names.push("classic task files (tasks/, per chunk)");
    if (layouts.has("v4")) names.push("SDK session files (sessions/, per response)");
    return names.join(" and ") || "task files";
  }

  private hookDetail(): string {
    // Found once: finding Cline's Documents folder runs xdg-user-dir on Linux.
    this.hookDirs ??= clineHookDirs();
    const installed = this.hookDirs.some((d) => hookDirStatus(d).state === "installed");
    if (!installed) return "PreToolUse hook not installed";
    return this.hookServer ? "PreToolUse hook installed and answered here" : "PreToolUse hook installed, but this window cannot answer it";
  }

  private setStatus(state: HostStatus["state"], detail: string): void {
    const sessions = this.liveTasks.size;
    if (this.current.state === state && this.current.detail === detail && this.current.sessions === sessions) return;
    this.current = { hostId: this.hostId, label: this.label, state, detail, sessions };
    this.statusEmitter.fire(this.current);
  }

  status(): HostStatus { return this.current; }

  act(taskId: string, intervention: Intervention): Promise<ActionOutcome> {
    return this.actions.act(taskId, intervention, this.guard?.answeredByHook(intervention) ?? false);
  }

  /** Without Cline's API nothing reaches the task (ClineActions would fail): say what would work instead. */
  cannotAct(taskId: string): Remedy | undefined {
    if (this.api) return undefined;
    this.hookDirs ??= clineHookDirs();
    return clineRemedy({
      hookInstalled: this.hookDirs.some((d) => hookDirStatus(d).state === "installed"),
      extensionInstalled: vscode.extensions.getExtension(CLINE_EXTENSION_ID) !== undefined,
      taskFile: this.watcher?.snapshot(taskId)?.file,
    });
  }

  handledByHost(taskId: string, iv: Intervention): ActionOutcome | undefined {
    if (!this.guard || !(this.guard.answeredByHook(iv) || this.guard.hookWillCarry(taskId, iv))) return undefined;
    if (iv.action === "warn") return { done: "Loop Sentinel's PreToolUse hook added the guidance to the call's result: the model reads it in its next request", ok: true };
    // Classic Cline asks to resume after a hook's cancel: the API then sends the guidance as the answer.
    if (this.watcher?.snapshot(taskId)?.layout === "classic") return undefined;
    return { done: "refused the call through Loop Sentinel's PreToolUse hook; Cline ended the run (its SDK engine shows the reason only in its log): send a message to continue", ok: true };
  }

  dispose(): void {
    this.watcher?.stop();
    void this.hookServer?.close();
    if (this.apiTimer) clearTimeout(this.apiTimer);
    this.statusEmitter.dispose();
    this.eventEmitter.dispose();
  }
}

export function createClineAdapters(env: HostEnvironment): HostAdapter[] {
  return [new ClineAdapter(env)];
}
