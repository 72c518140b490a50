/**
 * Answers the PreToolUse hook from the same engine sessions the task-file watcher feeds.
 *
 * The hook sees a call before it runs; the task files show it before (classic: `say:"command"` is
 * written, then the hook runs) or after (SDK: the session file may be written after the tools).
 * So on each question the guard first lets the watcher read what is new, then:
 * - the call is already in the engine (same id, or for classic the newest unclaimed call of that
 *   name and target): the answer is what the engine decided when it counted it;
 * - otherwise the call is counted now, as the engine counts any call, and when the watcher later
 *   reads it from the file it is not counted twice (matched by id, or by name and target).
 * Plain Node: the extension's Cline adapter and `loop-sentinel watch` use it.
 */
import type { TraceEvent } from "../../engine/events";
import type { Intervention } from "../../engine/session";
import { BoundedMap } from "../../engine/boundedMap";
import type { HookQuery, HookReply } from "./hookProtocol";
import type { ClineTaskEvent } from "./watcher";

/** Calls remembered per task, to answer for them and to match their copies in the task files. */
const MAX_CALLS = 64;
const MAX_TASKS = 64;
/** A call the hook reported is matched to the file's copy only within this long. */
const MATCH_WINDOW_MS = 120_000;
/** A task whose calls the hook asked about within this long is taken to run the hook for its next ones. */
const HOOK_ACTIVE_MS = 10 * 60_000;

export interface GuardOptions {
  /** Feeds one event to the task's engine session; returns the interventions it caused. */
  feed(taskId: string, event: TraceEvent, origin: ClineTaskEvent | undefined): Intervention[];
  /** Reads what is new in the task files now (the watcher's poll). */
  catchUp?(): void;
  /** The task or session folder is one the watcher follows. */
  knowsTask(taskId: string): boolean;
  /** False while Loop Sentinel is off or warn-only: the hook then lets every call through. */
  mayAct?(): boolean;
  now?(): number;
}

interface CallRecord {
  id: string;
  name: string;
  target: string;
  interventions: Intervention[];
  /** Counted from the hook's report; its copy in the task file is still to come. */
  awaitingFile: boolean;
  /** The hook gave the call's own id (SDK): its copy is matched by that id only. */
  exactId: boolean;
  /** The hook asked about it already (a classic call is matched to one question only). */
  asked: boolean;
  at: number;
}

interface TaskCalls {
  /** When the hook last asked about a call of this task (ms): the hook runs for it. */
  lastAsked?: number;
  calls: BoundedMap<string, CallRecord>;
  /** Ids the task file gives calls the hook reported first → the id they were counted under. */
  aliases: BoundedMap<string, string>;
}

const TARGET_KEYS = ["command", "path", "file_path", "regex", "pattern", "query", "url", "uri"];

/** What a call is about, for matching the hook's report to the file's copy (classic files lose the exact input). */
export function callTarget(input: Record<string, unknown>): string {
  for (const k of TARGET_KEYS) {
    const v = input[k];
    if (typeof v === "string" && v.trim() !== "") return `${k}=${v.trim()}`;
  }
  if (Array.isArray(input.commands)) return `commands=${JSON.stringify(input.commands)}`;
  return "";
}

const RANK: Record<string, number> = { warn: 1, block: 2, abort: 2, stop: 3 };

export class ClineGuard {
  private readonly tasks = new BoundedMap<string, TaskCalls>(MAX_TASKS);
  private readonly answered = new WeakSet<Intervention>();
  private synthetic = 0;
  private readonly now: () => number;

  constructor(private readonly options: GuardOptions) {
    this.now = options.now ?? Date.now;
  }

  private task(taskId: string): TaskCalls {
    let t = this.tasks.get(taskId);
    if (!t) { t = { calls: new BoundedMap(MAX_CALLS), aliases: new BoundedMap(MAX_CALLS) }; this.tasks.set(taskId, t); }
    return t;
  }

  /** An event from the task files: counted unless the hook reported that call first. */
  onWatcherEvent(e: ClineTaskEvent): void {
    const t = this.task(e.taskId);
    const ev = e.event;
    if (ev.t === "tool_call") {
      const early = this.reportedEarlier(t, ev.id, ev.name, callTarget(ev.input));
      if (early) {
        early.awaitingFile = false;
        if (early.id !== ev.id) t.aliases.set(ev.id, early.id);
        return;
      }
      const interventions = this.options.feed(e.taskId, ev, e);
      t.calls.set(ev.id, { id: ev.id, name: ev.name, target: callTarget(ev.input), interventions, awaitingFile: false, exactId: true, asked: false, at: this.now() });
      return;
    }
    if (ev.t === "tool_result") {
      const alias = t.aliases.peek(ev.id);
      if (alias !== undefined) { this.options.feed(e.taskId, { ...ev, id: alias }, e); return; }
    }
    this.options.feed(e.taskId, ev, e);
  }

  private reportedEarlier(t: TaskCalls, id: string, name: string, target: string): CallRecord | undefined {
    const byId = t.calls.peek(id);
    if (byId?.awaitingFile) return byId;
    const cutoff = this.now() - MATCH_WINDOW_MS;
    for (const c of t.calls.values()) if (c.awaitingFile && !c.exactId && c.at >= cutoff && c.name === name && c.target === target) return c;
    return undefined;
  }

  /** The hook's question: would the engine refuse this call? */
  decide(q: HookQuery): HookReply {
    try { this.options.catchUp?.(); } catch { /* answer from what is known */ }
    if (!this.options.knowsTask(q.taskId) && !this.tasks.peek(q.taskId)) return { known: false, action: "allow" };
    const t = this.task(q.taskId);
    t.lastAsked = this.now();
    let record = this.alreadyCounted(t, q);
    if (!record) {
      const id = q.toolCallId ?? `hook-${++this.synthetic}`;
      const event: TraceEvent = { t: "tool_call", id, name: q.toolName, input: q.input, ts: this.now() };
      const interventions = this.options.feed(q.taskId, event, undefined);
      record = { id, name: q.toolName, target: callTarget(q.input), interventions, awaitingFile: true, exactId: q.toolCallId !== undefined, asked: true, at: this.now() };
      t.calls.set(id, record);
    }
    record.asked = true;
    if (this.options.mayAct && !this.options.mayAct()) return { known: true, action: "allow" };
    let chosen: Intervention | undefined;
    for (const iv of record.interventions) if (!chosen || RANK[iv.action] > RANK[chosen.action]) chosen = iv;
    if (!chosen || chosen.action === "abort") return { known: true, action: "allow" };
    this.answered.add(chosen);
    return { known: true, action: chosen.action, message: chosen.message, detector: chosen.detector, summary: chosen.summary };
  }

  private alreadyCounted(t: TaskCalls, q: HookQuery): CallRecord | undefined {
    if (q.toolCallId !== undefined) return t.calls.peek(q.toolCallId) ?? t.calls.peek(t.aliases.peek(q.toolCallId) ?? "\u0000");
    // Classic: the file's newest call not yet asked about, if it is this one.
    let newest: CallRecord | undefined;
    for (const c of t.calls.values()) if (!c.awaitingFile && (!newest || c.at >= newest.at)) newest = c;
    if (newest && !newest.asked && newest.name === q.toolName && newest.target === callTarget(q.input)) return newest;
    return undefined;
  }

  /** The hook already carried this intervention to Cline (the API need not send it again). */
  answeredByHook(iv: Intervention): boolean {
    return this.answered.has(iv);
  }

  /**
   * The task file showed the call first (classic Cline writes it, then runs the hook): the hook,
   * which runs for this task, is about to ask and will carry this intervention.
   */
  hookWillCarry(taskId: string, iv: Intervention): boolean {
    if (this.options.mayAct && !this.options.mayAct()) return false;
    const t = this.tasks.peek(taskId);
    if (!t || t.lastAsked === undefined || this.now() - t.lastAsked > HOOK_ACTIVE_MS) return false;
    for (const c of t.calls.values()) if (!c.asked && c.name !== "attempt_completion" && c.interventions.includes(iv)) return true;
    return false;
  }
}
