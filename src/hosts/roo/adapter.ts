/**
 * Finding Roo-compatible hosts among the installed extensions and keeping the connection right as
 * they activate, get installed or removed, or change their API. One adapter per known host (Roo
 * Code, Roo Code Nightly, Kilo Code) and one for any other extension whose exports have Roo's API
 * shape. The extension registry is injected (VS Code's in index.ts, a fake in unit tests).
 */
import type { Intervention } from "../../engine/session";
import { HostEvents, type ActionOutcome, type Disposable, type HostAdapter, type HostStatus, type HostState } from "../hostAdapter";
import { rooApiProblem, type RooApiLike } from "./api";
import { RooConnection, type ActionTiming } from "./connection";
import { AutoApprovalHold, type HoldStore } from "./autoApprovalHold";
import { TaskFolderWatcher } from "./taskFiles";
import { installedVersion, pluginFolder } from "../opencode/install";
import { reportFilePath } from "../opencode/settingsFile";
import * as path from "node:path";

export interface ExtensionLike {
  readonly id: string;
  readonly isActive: boolean;
  readonly exports: unknown;
  readonly packageJSON: { name?: string; displayName?: string; version?: string; publisher?: string; contributes?: { commands?: Array<{ command?: unknown }> } };
  activate(): PromiseLike<unknown>;
}

export interface ExtensionRegistry {
  readonly all: readonly ExtensionLike[];
  onDidChange(listener: () => void): Disposable;
}

export interface HostSpec {
  hostId: string;
  label: string;
  /** Extension ids (case-insensitive) this adapter watches; empty = any other Roo-shaped extension. */
  ids: string[];
  /** Folder name of its global storage: task files, and telling "disabled" from "never installed". */
  storageFolder?: string;
  /** Prefix of its settings and commands (`roo-cline.customStoragePath`). */
  settingsPrefix?: string;
  /** Why a found-but-incompatible build cannot be watched, and what to do (Kilo Code 7 has no API). */
  incompatibleHint?: () => string;
}

/** Kilo Code 7's agent runs in its own server: it is guarded by the plugin, if the user connected it. */
function kiloPluginHint(): string {
  const why = "Kilo Code 7 and later run their agent in a separate server and export no extension API";
  const folder = pluginFolder("kilo");
  const version = installedVersion(folder);
  return version === undefined
    ? `${why}: not connected. Run “Loop Sentinel: Connect Kilo Code” to install Loop Sentinel's plugin into that server`
    : `${why}: Loop Sentinel's plugin ${version} in ${folder} guards its sessions inside that server (from Kilo's next start); its report: ${reportFilePath()}`;
}

export const ROO_HOSTS: HostSpec[] = [
  { hostId: "roo-code", label: "Roo Code", ids: ["RooVeterinaryInc.roo-cline"], storageFolder: "rooveterinaryinc.roo-cline", settingsPrefix: "roo-cline" },
  { hostId: "roo-code-nightly", label: "Roo Code Nightly", ids: ["RooVeterinaryInc.roo-code-nightly"], storageFolder: "rooveterinaryinc.roo-code-nightly", settingsPrefix: "roo-code-nightly" },
  {
    hostId: "kilo-code", label: "Kilo Code", ids: ["kilocode.kilo-code"], storageFolder: "kilocode.kilo-code", settingsPrefix: "kilo-code",
    incompatibleHint: kiloPluginHint,
  },
  // Roo's successors keep its API under their own ids, storage folders and command prefixes
  // (shared/hosts/landscape.md): Zoo Code (community fork, weekly releases) and CoStrict.
  { hostId: "zoo-code", label: "Zoo Code", ids: ["ZooCodeOrganization.zoo-code"], storageFolder: "zoocodeorganization.zoo-code", settingsPrefix: "zoo-code" },
  { hostId: "costrict", label: "CoStrict", ids: ["zgsm-ai.zgsm"], storageFolder: "zgsm-ai.zgsm", settingsPrefix: "zgsm" },
  { hostId: "roo-compatible", label: "Roo-compatible extensions", ids: [] },
];

const KNOWN_IDS = new Set(ROO_HOSTS.flatMap((h) => h.ids.map((i) => i.toLowerCase())));
/** How long to wait for a host's activation before calling it stuck. */
const ACTIVATION_TIMEOUT_MS = 60_000;
/**
 * VS Code has no event for another extension's activation; an unknown Roo-shaped extension is
 * noticed by looking again: often just after startup, then now and then (a cheap scan).
 */
const RESCAN_EARLY_MS = 2_000;
const RESCAN_EARLY_PERIOD_MS = 60_000;
const RESCAN_LATE_MS = 30_000;

export interface AdapterDeps {
  extensions: ExtensionRegistry;
  log(line: string): void;
  /** Whether a host's global storage folder exists (it was installed once). */
  storageExists?(folder: string): boolean;
  /** VS Code's global storage folder (…/User/globalStorage): hosts keep their task files under it. */
  globalStorageRoot?: string;
  /** A host's own setting (its `customStoragePath` moves the task files). */
  hostSetting?(key: string): unknown;
  timing?: Partial<ActionTiming>;
  taskPollMs?: number;
  /** Runs a VS Code command (the host's `toggleAutoApprove`); without it auto-approval is never held. */
  runCommand?(id: string): Promise<unknown>;
  /** Where holds of a host's auto-approval are written down, to undo one a crash left. */
  holdStore?: HoldStore;
}

interface Link {
  ext: ExtensionLike;
  api: RooApiLike;
  connection: RooConnection;
  /** Task files of tasks the API does not report (editor tabs). */
  files?: TaskFolderWatcher;
}

export class RooHostAdapter extends HostEvents implements HostAdapter {
  readonly hostId: string;
  readonly label: string;
  private readonly links = new Map<string, Link>();
  private readonly activating = new Set<string>();
  private state: HostState = "not-found";
  private detail = "";
  private changeSubscription: Disposable | undefined;
  private rescanTimer: ReturnType<typeof setTimeout> | undefined;
  private startedAt = 0;
  private disposed = false;

  constructor(private readonly spec: HostSpec, private readonly deps: AdapterDeps) {
    super();
    this.hostId = spec.hostId;
    this.label = spec.label;
    this.detail = this.notFoundDetail();
  }

  async start(): Promise<void> {
    try {
      this.changeSubscription = this.deps.extensions.onDidChange(() => { void this.refresh(); });
      this.startedAt = Date.now();
      await this.refresh();
      if (this.spec.ids.length === 0) this.scheduleRescan();
    } catch (err) {
      this.setStatus("error", `could not look for ${this.label}: ${(err as Error).message ?? String(err)}`);
    }
  }

  status(): HostStatus {
    let sessions = 0;
    for (const l of this.links.values()) sessions += l.connection.sessions;
    return { hostId: this.hostId, label: this.label, state: this.state, detail: this.detail, sessions };
  }

  async act(taskId: string, intervention: Intervention): Promise<ActionOutcome> {
    try {
      const links = [...this.links.values()];
      const link = links.find((l) => l.connection.knows(taskId)) ?? (links.length === 1 ? links[0] : undefined);
      if (!link) return { ok: false, done: `${this.label} is not connected; nothing sent` };
      if (!link.connection.knows(taskId) && link.files?.isFileTask(taskId)) {
        return { ok: false, done: `not sent: this task runs in an editor tab, which ${this.label}'s API cannot reach (shown here only)` };
      }
      return await link.connection.act(taskId, intervention);
    } catch (err) {
      return { ok: false, done: `failed: ${(err as Error).message ?? String(err)}` };
    }
  }

  private scheduleRescan(): void {
    if (this.disposed) return;
    const early = Date.now() - this.startedAt < RESCAN_EARLY_PERIOD_MS;
    this.rescanTimer = setTimeout(() => {
      void this.refresh().finally(() => this.scheduleRescan());
    }, early ? RESCAN_EARLY_MS : RESCAN_LATE_MS);
  }

  dispose(): void {
    this.disposed = true;
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    this.changeSubscription?.dispose();
    for (const l of this.links.values()) { l.connection.dispose(); l.files?.dispose(); }
    this.links.clear();
    this.statusEmitter.dispose();
    this.eventEmitter.dispose();
  }

  private matches(ext: ExtensionLike): boolean {
    const id = ext.id.toLowerCase();
    if (this.spec.ids.length) return this.spec.ids.some((i) => i.toLowerCase() === id);
    // Any other extension: only by the shape of its exports (checked once it is active).
    return !KNOWN_IDS.has(id);
  }

  private nameOf(ext: ExtensionLike): string {
    const p = ext.packageJSON ?? {};
    return `${p.displayName ?? p.name ?? ext.id}${p.version ? ` ${p.version}` : ""}`;
  }

  /** Re-reads the installed extensions: connect new or re-activated hosts, drop removed or changed ones. */
  async refresh(): Promise<void> {
    if (this.disposed) return;
    const candidates = this.deps.extensions.all.filter((e) => this.matches(e));
    const problems: string[] = [];
    for (const [id, link] of this.links) {
      const ext = candidates.find((e) => e.id === id);
      // Gone (uninstalled/disabled) or its exports are another object now (updated and reloaded).
      if (!ext || (ext.isActive && ext.exports !== link.api)) {
        link.connection.dispose();
        link.files?.dispose();
        this.links.delete(id);
        this.deps.log(`${this.label}: disconnected from ${this.nameOf(link.ext)}${ext ? " (its API object changed)" : " (no longer installed or enabled)"}`);
      }
    }
    const waiting: ExtensionLike[] = [];
    for (const ext of candidates) {
      if (this.links.has(ext.id)) continue;
      if (!ext.isActive) {
        if (this.spec.ids.length === 0) continue; // unknown extensions are only looked at once active
        waiting.push(ext);
        this.activateLater(ext);
        continue;
      }
      const problem = rooApiProblem(ext.exports);
      if (problem) {
        if (this.spec.ids.length) problems.push(`${this.nameOf(ext)}: ${problem}${this.spec.incompatibleHint ? `. ${this.spec.incompatibleHint()}` : ""}`);
        continue;
      }
      this.connect(ext, ext.exports as RooApiLike);
    }
    if (this.links.size) {
      const names = [...this.links.values()].map((l) => this.nameOf(l.ext)).join(", ");
      const files = [...this.links.values()].some((l) => l.files) ? ", and its task files for tasks open in editor tabs" : "";
      this.setStatus("watching", `watching ${names} through its extension API${files}${problems.length ? `; not watched: ${problems.join("; ")}` : ""}`);
    } else if (problems.length) {
      this.setStatus("error", `not watched: ${problems.join("; ")}`);
    } else if (waiting.length) {
      this.setStatus("inactive", `${waiting.map((e) => this.nameOf(e)).join(", ")} is installed but not active yet; watching starts when it activates`);
    } else {
      this.setStatus("not-found", this.notFoundDetail());
    }
  }

  private notFoundDetail(): string {
    if (this.spec.ids.length === 0) return "no other installed extension exports Roo Code's API";
    if (this.spec.storageFolder && this.deps.storageExists?.(this.spec.storageFolder)) {
      return `${this.label} is not enabled (it was installed before: disabled, uninstalled, or disabled in this workspace)`;
    }
    return `${this.label} is not installed`;
  }

  private activateLater(ext: ExtensionLike): void {
    if (this.activating.has(ext.id)) return;
    this.activating.add(ext.id);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => { timer = setTimeout(() => resolve("timeout"), ACTIVATION_TIMEOUT_MS); });
    Promise.race([Promise.resolve(ext.activate()).then(() => "ok" as const), timeout]).then(
      (r) => {
        this.activating.delete(ext.id);
        if (timer) clearTimeout(timer);
        if (r === "timeout") this.setStatus("inactive", `${this.nameOf(ext)} has not finished activating after ${ACTIVATION_TIMEOUT_MS / 1000} s`);
        void this.refresh();
      },
      (err: unknown) => {
        this.activating.delete(ext.id);
        if (timer) clearTimeout(timer);
        this.setStatus("error", `${this.nameOf(ext)} failed to activate: ${(err as Error)?.message ?? String(err)}`);
      },
    );
  }

  private connect(ext: ExtensionLike, api: RooApiLike): void {
    const autoApproval = this.autoApprovalHold(ext, api);
    const connection = new RooConnection({
      hostId: this.hostId,
      label: this.nameOf(ext),
      api,
      emit: (e) => this.eventEmitter.fire(e),
      log: this.deps.log,
      timing: this.deps.timing,
      autoApproval,
    });
    // A hold that a Loop Sentinel stopped mid-way left behind (crash, reload): the switch goes back on.
    void autoApproval?.recover().catch((err: unknown) => this.deps.log(`${this.label}: ${String(err)}`));
    const tasksDir = this.tasksDir();
    let files: TaskFolderWatcher | undefined;
    if (tasksDir) {
      files = new TaskFolderWatcher({
        hostId: this.hostId,
        label: this.nameOf(ext),
        tasksDir,
        emit: (e) => this.eventEmitter.fire(e),
        log: this.deps.log,
        isApiTask: (taskId) => connection.knows(taskId),
        pollMs: this.deps.taskPollMs,
      });
      files.start();
    }
    this.links.set(ext.id, { ext, api, connection, files });
    this.deps.log(`${this.label}: connected to ${this.nameOf(ext)} (${ext.id}) through its extension API${tasksDir ? `; task files in ${tasksDir}` : ""}`);
  }

  /**
   * The host's auto-approval master switch: its `toggleAutoApprove` command (named by its own
   * command prefix, which a rebuild under another id may keep) and `getConfiguration()`.
   */
  private autoApprovalHold(ext: ExtensionLike, api: RooApiLike): AutoApprovalHold | undefined {
    const run = this.deps.runCommand;
    if (!run || typeof api.getConfiguration !== "function") return undefined;
    const contributed = (ext.packageJSON.contributes?.commands ?? []).map((c) => c?.command).find((c): c is string => typeof c === "string" && c.endsWith(".toggleAutoApprove"));
    const command = contributed ?? `${this.spec.settingsPrefix ?? ext.packageJSON.name ?? ""}.toggleAutoApprove`;
    return new AutoApprovalHold({
      key: ext.id.toLowerCase(),
      label: this.nameOf(ext),
      switch: {
        enabled: () => {
          try { const v = api.getConfiguration?.()?.autoApprovalEnabled; return typeof v === "boolean" ? v : undefined; } catch { return undefined; }
        },
        toggle: async () => { await run(command); },
      },
      store: this.deps.holdStore,
      log: this.deps.log,
    });
  }

  /** Where the host keeps its task folders: its customStoragePath setting, else its global storage. */
  private tasksDir(): string | undefined {
    if (!this.spec.storageFolder) return undefined;
    let custom: unknown;
    try { custom = this.spec.settingsPrefix ? this.deps.hostSetting?.(`${this.spec.settingsPrefix}.customStoragePath`) : undefined; } catch { custom = undefined; }
    if (typeof custom === "string" && custom.trim() !== "") return path.join(custom.trim(), "tasks");
    return this.deps.globalStorageRoot ? path.join(this.deps.globalStorageRoot, this.spec.storageFolder, "tasks") : undefined;
  }

  private setStatus(state: HostState, detail: string): void {
    if (state === this.state && detail === this.detail) return;
    this.state = state;
    this.detail = detail;
    this.statusEmitter.fire(this.status());
  }
}

export function createRooHostAdapters(deps: AdapterDeps): RooHostAdapter[] {
  return ROO_HOSTS.map((spec) => new RooHostAdapter(spec, deps));
}
