/**
 * Follows Cline's task files live and turns what is new in them into trace events.
 * Plain Node (no `vscode`): the extension's Cline adapter and the headless `watch` command use it.
 *
 * Layouts (hosts/cline.md): classic `tasks/<id>/ui_messages.json` (extension v3 under
 * globalStorage/saoudrizwan.claude-dev, CLI 2.x under <config>/data), rewritten per streamed chunk
 * through a temporary file and a rename; v4 `sessions/<id>/<id>.messages.json` (extension v4,
 * CLI 3.x, ~/.cline/data), rewritten per response. Polling, not fs.watch: renames, network
 * folders and editors' atomic saves all look the same to a stat.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { TraceEvent } from "../../engine/events";
import { ClineClassicTranslator } from "./classicTranslator";
import { JsonArrayTail } from "./jsonArrayTail";
import { isRecord, type ClineMessage } from "./messages";
import { ClineSessionTranslator } from "./sessionTranslator";
import { TaskDigest } from "./taskDigest";

export type ClineLayout = "classic" | "v4";

/** Where an event came from in the task file: for logs and for tests that check timing. */
export interface EventSource {
  /** Index of the message in the file's message array. */
  index: number;
  /** `say:reasoning`, `ask:command`, `assistant`, ... */
  kind: string;
  /** The message was still streaming (classic `partial: true`). */
  partial: boolean;
  /** Length of the message's text at that moment. */
  chars: number;
}

export interface ClineTaskEvent {
  taskId: string;
  layout: ClineLayout;
  title?: string;
  event: TraceEvent;
  source: EventSource;
}

export interface ClineWatcherOptions {
  /** Data folders: globalStorage/saoudrizwan.claude-dev, ~/.cline/data, a CLI --config or --data-dir, or a tasks/ or sessions/ folder. */
  roots: string[];
  pollMs?: number;
  /**
   * Messages stamped before this time (ms since epoch) are history: read for context, not emitted.
   * Files not changed since then are not even read until they change.
   */
  historyBefore?: number;
  /** Guidance Loop Sentinel sent coming back as a user message: not a new user turn. */
  isEcho?: (taskId: string, text: string) => boolean;
  onEvent(e: ClineTaskEvent): void;
  /** A task changed (new messages, a new pending ask). */
  onTaskChange?(taskId: string): void;
  onError?(message: string): void;
}

/** What the adapter needs to know about a task to act on it. */
export interface ClineTaskSnapshot {
  taskId: string;
  layout: ClineLayout;
  file: string;
  title?: string;
  /** Last message of a classic task file (a non-partial `ask` there means Cline is waiting). */
  lastMessage?: ClineMessage;
  /** When the file last changed (ms since epoch, by our clock). */
  changedAt: number;
  digest: TaskDigest;
}

const DEFAULT_POLL_MS = 100;
/** A task whose file has not changed for this long is checked only every COLD_EVERY polls. */
const HOT_MS = 60_000;
const COLD_EVERY = 20;
/** After this long without change a task's cached file content is dropped (memory stays bounded). */
const FORGET_CONTENT_MS = 120_000;
/**
 * Share of one core a single busy large file may take: after a read that cost c ms the next waits
 * c × (1 / share − 1), at most MAX_READ_WAIT_MS. Files under LARGE_FILE_BYTES are read every poll.
 */
const CPU_SHARE_PER_FILE = 0.1;
const LARGE_FILE_BYTES = 1024 * 1024;
const MAX_READ_WAIT_MS = 1000;

interface TaskWatch {
  id: string;
  layout: ClineLayout;
  file: string;
  mtimeMs: number;
  size: number;
  ino: number;
  changedAt: number;
  /** The file was seen unchanged since before `historyBefore`: not read until it changes. */
  dormant: boolean;
  classic?: ClineClassicTranslator;
  session?: ClineSessionTranslator;
  tail?: JsonArrayTail;
  lastMessage?: ClineMessage;
  digest: TaskDigest;
  reportedError?: string;
  /** Not read again before this time (ms): keeps a huge file's cost within CPU_SHARE_PER_FILE. */
  nextReadAt: number;
}

/** The tasks/ and sessions/ folders a root may hold. */
export function taskFoldersOf(root: string): { layout: ClineLayout; dir: string }[] {
  const base = path.basename(root);
  if (base === "tasks") return [{ layout: "classic", dir: root }];
  if (base === "sessions") return [{ layout: "v4", dir: root }];
  const out: { layout: ClineLayout; dir: string }[] = [];
  for (const r of [root, path.join(root, "data")]) {
    out.push({ layout: "classic", dir: path.join(r, "tasks") }, { layout: "v4", dir: path.join(r, "sessions") });
  }
  return out;
}

function messageFileOf(layout: ClineLayout, dir: string, id: string): string {
  return layout === "classic" ? path.join(dir, id, "ui_messages.json") : path.join(dir, id, `${id}.messages.json`);
}

function textLength(v: unknown): number {
  if (!isRecord(v)) return 0;
  if (typeof v.text === "string") return v.text.length;
  if (Array.isArray(v.content)) {
    let n = 0;
    for (const b of v.content) if (isRecord(b)) n += (typeof b.text === "string" ? b.text.length : 0) + (typeof b.thinking === "string" ? b.thinking.length : 0);
    return n;
  }
  return 0;
}

export class ClineWatcher {
  private readonly tasks = new Map<string, TaskWatch>();
  private readonly folders: { layout: ClineLayout; dir: string }[];
  private timer: NodeJS.Timeout | undefined;
  private polls = 0;
  private readonly pollMs: number;

  constructor(private readonly options: ClineWatcherOptions) {
    const seen = new Set<string>();
    this.folders = options.roots.flatMap(taskFoldersOf).filter((f) => !seen.has(path.resolve(f.dir)) && seen.add(path.resolve(f.dir)));
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  }

  /** Polls now and then every pollMs until stop(). */
  start(): void {
    if (this.timer) return;
    const loop = () => {
      this.poll();
      this.timer = setTimeout(loop, this.pollMs);
    };
    loop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Folders that exist right now (for status: "watching 2 folders"). */
  existingFolders(): string[] {
    return this.folders.filter((f) => { try { return fs.statSync(f.dir).isDirectory(); } catch { return false; } }).map((f) => f.dir);
  }

  get taskCount(): number { return this.tasks.size; }

  /** Whether a task or session folder of this id was found under the roots. */
  hasTask(taskId: string): boolean { return this.tasks.has(taskId); }

  snapshot(taskId: string): ClineTaskSnapshot | undefined {
    const t = this.tasks.get(taskId);
    if (!t) return undefined;
    return { taskId, layout: t.layout, file: t.file, title: t.digest.title, lastMessage: t.lastMessage, changedAt: t.changedAt, digest: t.digest };
  }

  /** The task whose file changed last: the one Cline is running (its API only acts on that one). */
  latestTaskId(): string | undefined {
    let best: TaskWatch | undefined;
    for (const t of this.tasks.values()) if (!t.dormant && (!best || t.changedAt > best.changedAt)) best = t;
    return best?.id;
  }

  /** One round: discover new tasks, read the files that changed. Never throws. */
  poll(): void {
    this.polls++;
    for (const f of this.folders) this.discover(f.layout, f.dir);
    const now = Date.now();
    for (const t of this.tasks.values()) {
      const hot = now - t.changedAt < HOT_MS;
      if (!hot && (this.polls + hashOf(t.id)) % COLD_EVERY !== 0) continue;
      try { this.check(t, now); } catch (err) { this.error(t, `${t.file}: ${(err as Error).message}`); }
    }
  }

  private discover(layout: ClineLayout, dir: string): void {
    let names: string[];
    try { names = fs.readdirSync(dir); } catch { return; } // not there (yet)
    for (const id of names) {
      if (this.tasks.has(id) || id.startsWith(".")) continue;
      const file = messageFileOf(layout, dir, id);
      // A new task is hot: it is probably being written right now.
      const t: TaskWatch = { id, layout, file, mtimeMs: -1, size: -1, ino: -1, changedAt: Date.now(), dormant: false, digest: new TaskDigest(), nextReadAt: 0 };
      try {
        const st = fs.statSync(file);
        if (this.options.historyBefore !== undefined && st.mtimeMs < this.options.historyBefore) {
          // Untouched since before we started: history. Remember the stamp; read it only if it changes.
          t.dormant = true;
          t.mtimeMs = st.mtimeMs; t.size = st.size; t.ino = st.ino;
          t.changedAt = st.mtimeMs;
        }
      } catch { /* no message file yet: the task folder is created first */ }
      this.tasks.set(id, t);
    }
  }

  private check(t: TaskWatch, now: number): void {
    if (now < t.nextReadAt) return;
    let st: fs.Stats;
    try { st = fs.statSync(t.file); } catch { return; } // ENOENT between a write and its rename, or not yet written
    if (st.mtimeMs === t.mtimeMs && st.size === t.size && st.ino === t.ino) {
      if (t.tail && now - t.changedAt > FORGET_CONTENT_MS) t.tail.reset();
      return;
    }
    const firstRead = t.mtimeMs < 0 || t.dormant;
    const began = process.hrtime.bigint();
    let buf: Buffer;
    try { buf = fs.readFileSync(t.file); } catch { return; }
    t.mtimeMs = st.mtimeMs; t.size = st.size; t.ino = st.ino;
    t.changedAt = now;
    t.dormant = false;
    if (t.layout === "classic") this.readClassic(t, buf); else this.readSession(t, buf);
    const costMs = Number(process.hrtime.bigint() - began) / 1e6;
    // The first read of a task (its whole history) says nothing about the cost of following it.
    if (!firstRead && buf.length > LARGE_FILE_BYTES) t.nextReadAt = now + Math.min(MAX_READ_WAIT_MS, costMs * (1 / CPU_SHARE_PER_FILE - 1));
    t.reportedError = undefined;
    this.options.onTaskChange?.(t.id);
  }

  private readClassic(t: TaskWatch, buf: Buffer): void {
    t.tail ??= new JsonArrayTail();
    t.classic ??= new ClineClassicTranslator({ isEcho: (text) => this.options.isEcho?.(t.id, text) ?? false });
    const update = t.tail.update(buf);
    for (const { index, value } of update.changed) {
      const m = value as ClineMessage;
      const source: EventSource = { index, kind: isRecord(m) ? `${m.type}:${m.type === "ask" ? m.ask : m.say}` : "?", partial: isRecord(m) && m.partial === true, chars: textLength(m) };
      this.emit(t, t.classic.message(index, value), source);
      if (index === update.length - 1) t.lastMessage = isRecord(value) ? m : undefined;
    }
    if (update.complete && update.length < t.classic.length) {
      t.classic.truncate(update.length);
      t.lastMessage = undefined;
    }
  }

  private readSession(t: TaskWatch, buf: Buffer): void {
    let doc: unknown;
    try { doc = JSON.parse(buf.toString("utf8")); } catch { return; } // half-written: the next write completes it
    if (!isRecord(doc) || !Array.isArray(doc.messages)) { this.error(t, `${t.file}: no "messages" array`); return; }
    t.session ??= new ClineSessionTranslator({ isEcho: (text) => this.options.isEcho?.(t.id, text) ?? false });
    doc.messages.forEach((m, index) => {
      const source: EventSource = { index, kind: isRecord(m) ? String(m.role) : "?", partial: false, chars: textLength(m) };
      this.emit(t, t.session!.message(index, m), source);
    });
  }

  private emit(t: TaskWatch, events: TraceEvent[], source: EventSource): void {
    const before = this.options.historyBefore;
    for (const event of events) {
      t.digest.add(event);
      if (before !== undefined && event.ts !== undefined && event.ts < before) continue;
      try { this.options.onEvent({ taskId: t.id, layout: t.layout, title: t.digest.title, event, source }); } catch (err) {
        this.options.onError?.(`event listener failed: ${(err as Error).message}`);
      }
    }
  }

  private error(t: TaskWatch, message: string): void {
    if (t.reportedError === message) return;
    t.reportedError = message;
    this.options.onError?.(message);
  }
}

/** Spreads cold tasks' checks over the polls. */
function hashOf(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return Math.abs(h);
}
