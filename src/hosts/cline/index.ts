/**
 * The Cline host for the extension: Cline exports no events, so its task files are the feed
 * (ClineWatcher, plain Node) and its four-function API carries the actions (ClineActions).
 * This file is the only Cline part that touches `vscode`: finding the extension, its data folders
 * and the optional `loopSentinel.cline.dataFolders` setting.
 */
import * as vscode from "vscode";
import type { Intervention } from "../../engine/session";
import { Emitter, type ActionOutcome, type HostAdapter, type HostEnvironment, type HostSessionEvent, type HostStatus } from "../hostAdapter";
import { ClineActions, isClineApi, type ClineApi } from "./actions";
import { CLINE_EXTENSION_ID, clineDataRoots } from "./locations";
import { ClineWatcher } from "./watcher";

/** Tasks that changed this long before we started are history (a reload mid-task still counts). */
const START_GRACE_MS = 60_000;
/** How often to look again for the Cline extension's API while it is not active. */
const API_RETRY_MS = 5_000;

class ClineAdapter implements HostAdapter {
  readonly hostId = "cline";
  readonly label = "Cline";
  private readonly statusEmitter = new Emitter<HostStatus>();
  private readonly eventEmitter = new Emitter<HostSessionEvent>();
  readonly onStatusChange = this.statusEmitter.subscribe;
  readonly onEvent = this.eventEmitter.subscribe;
  private watcher: ClineWatcher | undefined;
  private readonly actions: ClineActions;
  private api: ClineApi | undefined;
  private apiTimer: NodeJS.Timeout | undefined;
  private readonly liveTasks = new Set<string>();
  private current: HostStatus = { hostId: "cline", label: "Cline", state: "inactive", detail: "starting", sessions: 0 };

  constructor(private readonly env: HostEnvironment) {
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
      this.watcher = new ClineWatcher({
        roots,
        historyBefore: Date.now() - START_GRACE_MS,
        isEcho: (taskId, text) => this.actions.isEcho(taskId, text),
        onEvent: (e) => {
          this.eventEmitter.fire({ hostId: this.hostId, taskId: e.taskId, title: e.title, event: e.event });
          if (!this.liveTasks.has(e.taskId)) { this.liveTasks.add(e.taskId); this.refreshStatus(); }
        },
        onTaskChange: (taskId) => { void this.actions.onTaskChange(taskId); },
        onError: (m) => this.env.log(`Cline: ${m}`),
      });
      this.watcher.start();
      this.findApi();
      this.refreshStatus();
    } catch (err) {
      this.setStatus("error", `could not watch Cline's task files: ${(err as Error).message}`);
    }
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
    this.setStatus("watching", `task files in ${folders.join(", ")}; ${actions}`);
  }

  private setStatus(state: HostStatus["state"], detail: string): void {
    const sessions = this.liveTasks.size;
    if (this.current.state === state && this.current.detail === detail && this.current.sessions === sessions) return;
    this.current = { hostId: this.hostId, label: this.label, state, detail, sessions };
    this.statusEmitter.fire(this.current);
  }

  status(): HostStatus { return this.current; }

  act(taskId: string, intervention: Intervention): Promise<ActionOutcome> {
    return this.actions.act(taskId, intervention);
  }

  dispose(): void {
    this.watcher?.stop();
    if (this.apiTimer) clearTimeout(this.apiTimer);
    this.statusEmitter.dispose();
    this.eventEmitter.dispose();
  }
}

export function createClineAdapters(env: HostEnvironment): HostAdapter[] {
  return [new ClineAdapter(env)];
}
