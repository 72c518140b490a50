/**
 * Watches a Roo host's task folders (`<storage>/tasks/<id>/ui_messages.json`) for tasks its API does
 * not report: those opened in an editor tab ("Open in Editor") get no API events. Roo rewrites the
 * whole file on every new message (not on every streamed chunk), replacing it by rename, so the file
 * is polled by mtime, re-read whole, and diffed by message `ts`. Detection only: the API cannot
 * act on editor-tab tasks. Plain Node (no vscode).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { BoundedMap } from "../../engine/boundedMap";
import type { HostSessionEvent } from "../hostAdapter";
import { snapshotMessage, type RooMessage } from "./messages";
import { RooTaskTranslator } from "./translator";

export const TASK_POLL_MS = 2000;
/** Task folders followed at once (the ones changing now); older ones are forgotten. */
const MAX_FOLLOWED_TASKS = 16;
/** Task folders whose mtime is checked per poll (the newest first). */
const MAX_STATS_PER_POLL = 2000;
const UI_MESSAGES = "ui_messages.json";

interface FollowedTask {
  translator: RooTaskTranslator;
  /** Per message ts: what we last saw of it (partial state, answered, text length and end). */
  seen: Map<number, string>;
}

export interface TaskFolderWatcherOptions {
  hostId: string;
  label: string;
  tasksDir: string;
  emit(e: HostSessionEvent): void;
  log(line: string): void;
  /** Tasks the API reports are not read from files (they would count twice). */
  isApiTask(taskId: string): boolean;
  pollMs?: number;
  now?(): number;
}

function signature(m: RooMessage): string {
  const t = m.text ?? "";
  return `${m.partial}|${m.isAnswered}|${t.length}|${t.slice(-32)}`;
}

export class TaskFolderWatcher {
  private readonly mtimes = new Map<string, number>();
  private readonly followed = new BoundedMap<string, FollowedTask>(MAX_FOLLOWED_TASKS);
  private timer: ReturnType<typeof setTimeout> | undefined;
  private baselineTaken = false;
  private startedAt = 0;
  private polling = false;
  private rotation = 0;
  private disposed = false;
  private readonly now: () => number;
  private reportedProblem = false;

  constructor(private readonly options: TaskFolderWatcherOptions) {
    this.now = options.now ?? (() => Date.now());
  }

  /** Tasks followed from files right now. */
  get fileTasks(): string[] { return [...this.followed.entries()].map(([id]) => id); }

  isFileTask(taskId: string): boolean { return this.followed.peek(taskId) !== undefined; }

  start(): void {
    this.startedAt = this.now();
    void this.tick();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async tick(): Promise<void> {
    if (this.disposed) return;
    await this.poll();
    if (!this.disposed) this.timer = setTimeout(() => void this.tick(), this.options.pollMs ?? TASK_POLL_MS);
  }

  /** One look at the folders; exposed for tests. Never throws. */
  async poll(): Promise<void> {
    if (this.polling || this.disposed) return;
    this.polling = true;
    try {
      let names: string[];
      try { names = await fs.promises.readdir(this.options.tasksDir); } catch { return; } // no tasks yet
      const changed: string[] = [];
      const folders = names.filter((n) => !n.startsWith(".") && !n.startsWith("_"));
      // New folders are always looked at; known ones in turns of MAX_STATS_PER_POLL (huge histories).
      const fresh = folders.filter((n) => !this.mtimes.has(n));
      const known = folders.filter((n) => this.mtimes.has(n));
      const start = known.length > MAX_STATS_PER_POLL ? this.rotation % known.length : 0;
      const turn = known.length > MAX_STATS_PER_POLL ? [...known.slice(start), ...known.slice(0, start)].slice(0, MAX_STATS_PER_POLL) : known;
      this.rotation += MAX_STATS_PER_POLL;
      for (const name of [...fresh, ...turn]) {
        let mtime: number;
        try { mtime = (await fs.promises.stat(path.join(this.options.tasksDir, name, UI_MESSAGES))).mtimeMs; } catch { continue; }
        const before = this.mtimes.get(name);
        this.mtimes.set(name, mtime);
        if (before !== mtime && (this.baselineTaken || before !== undefined)) changed.push(name);
      }
      this.baselineTaken = true;
      for (const taskId of changed) {
        if (this.options.isApiTask(taskId)) continue;
        await this.read(taskId);
      }
    } catch (err) {
      if (!this.reportedProblem) { this.reportedProblem = true; this.options.log(`${this.options.label}: task files not readable: ${String(err)}`); }
    } finally {
      this.polling = false;
    }
  }

  private async read(taskId: string): Promise<void> {
    const file = path.join(this.options.tasksDir, taskId, UI_MESSAGES);
    let raw: unknown;
    try {
      raw = JSON.parse(await fs.promises.readFile(file, "utf8"));
    } catch {
      // Mid-rewrite (Roo renames a temp file into place): the next poll sees the finished file.
      this.mtimes.delete(taskId);
      return;
    }
    if (!Array.isArray(raw)) return;
    let task = this.followed.get(taskId);
    const firstLook = !task;
    if (!task) { task = { translator: new RooTaskTranslator(), seen: new Map() }; this.followed.set(taskId, task); }
    const emitFrom = firstLook ? this.startedAt : -Infinity;
    for (const value of raw) {
      const m = snapshotMessage(value);
      if (!m) continue;
      const sig = signature(m);
      const before = task.seen.get(m.ts);
      if (before === sig) continue;
      task.seen.set(m.ts, sig);
      const events = task.translator.message(before === undefined ? "created" : "updated", m, this.now());
      // A task already running when we started: its history before that only sets the context.
      if (m.ts < emitFrom && before === undefined) continue;
      for (const event of events) this.options.emit({ hostId: this.options.hostId, taskId, title: task.translator.title, event });
    }
  }
}
