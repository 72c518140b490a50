/**
 * Replays the real Roo Code 3.52.1 recordings (test/fixtures/roo-real, cut from
 * ../shared/hosts/roo-real by extract.mjs) in Roo's own order: every API event the real host emitted
 * during one scenario, with its receipt time. Nothing here invents an event.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession, type Intervention } from "../../src/engine/session";
import type { RooMessage } from "../../src/hosts/roo/messages";
import { RooTaskTranslator } from "../../src/hosts/roo/translator";

const DIR = path.resolve(__dirname, "../../../test/fixtures/roo-real");

export interface RecordedLine {
  rel: number;
  kind: string;
  ev?: string;
  taskId?: string;
  action?: "created" | "updated";
  ts?: number;
  type?: "say" | "ask";
  say?: string;
  ask?: string;
  partial?: boolean;
  isAnswered?: boolean;
  text?: string;
  args?: unknown[];
  method?: string;
  name?: string;
}

export function loadRecording(name: string): RecordedLine[] {
  return fs.readFileSync(path.join(DIR, `${name}.jsonl`), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as RecordedLine);
}

export const RECORDINGS = fs.readdirSync(DIR).filter((f) => f.endsWith(".jsonl")).map((f) => f.replace(/\.jsonl$/, "")).sort();

/** The message as Roo's `message` event carried it. */
export function messageOf(line: RecordedLine): RooMessage {
  const m: RooMessage = { ts: line.ts!, type: line.type! };
  if (line.say !== undefined) m.say = line.say;
  if (line.ask !== undefined) m.ask = line.ask;
  if (line.partial !== undefined) m.partial = line.partial;
  if (line.isAnswered !== undefined) m.isAnswered = line.isAnswered;
  if (line.text !== undefined) m.text = line.text;
  return m;
}

/** The `(event name, ...args)` Roo's API emitted for this line, as a listener receives them. */
export function apiEventOf(line: RecordedLine): { name: string; args: unknown[] } | undefined {
  if (line.kind !== "roo" || !line.ev) return undefined;
  if (line.ev === "message") return { name: "message", args: [{ taskId: line.taskId, action: line.action, message: messageOf(line) }] };
  // The recorder stringified object arguments; listeners receive the objects.
  const args = (line.args ?? []).map((a) => (typeof a === "string" && /^[[{]/.test(a) ? JSON.parse(a) : a));
  return { name: line.ev, args };
}

export interface EngineReplay {
  events: TraceEvent[];
  interventions: Intervention[];
  /** tool_call events in order, with the intervention each drew (if any). */
  calls: Array<{ name: string; input: Record<string, unknown>; event: number; intervention?: Intervention }>;
  requests: number;
}

/** The scenario's messages through one task translator and the engine with default settings. */
export function replayThroughEngine(name: string): EngineReplay {
  const t = new RooTaskTranslator();
  const session = new LoopSession();
  const events: TraceEvent[] = [];
  const interventions: Intervention[] = [];
  const calls: EngineReplay["calls"] = [];
  for (const line of loadRecording(name)) {
    if (line.kind !== "roo") continue;
    let out: TraceEvent[] = [];
    if (line.ev === "message") out = t.message(line.action!, messageOf(line), line.rel);
    else if (line.ev === "taskToolFailed") out = t.toolFailed(String(line.args?.[1]), String(line.args?.[2]), line.rel);
    for (const ev of out) {
      events.push(ev);
      const ivs = session.push(ev);
      if (ev.t === "tool_call") calls.push({ name: ev.name, input: ev.input, event: events.length - 1, intervention: ivs[0] });
      interventions.push(...ivs);
    }
  }
  return { events, interventions, calls, requests: events.filter((e) => e.t === "request").length };
}

/**
 * Roo's API replaying one recorded scenario, one event per macrotask so actions interleave as they
 * would live. What it does on its own after an action is only what the same recordings show the real
 * Roo doing: a cancel ends the recorded stream and Roo asks `resume_task`; a message sent while that
 * question waits comes back as `user_feedback`. A message sent at any other moment is not answered
 * here: whether the real Roo passed it on is in the recording itself.
 */
export class RecordedRoo {
  readonly calls: Array<{ method: string; args: unknown[] }> = [];
  private listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  private stopped = false;
  private resumeAskTs: number | undefined;
  private clock = 0;
  readonly taskId: string;

  /** `configuration`: what getConfiguration() answers (Roo's settings, e.g. auto-approval held off); none by default. */
  constructor(private readonly lines: RecordedLine[], configuration?: Record<string, unknown>) {
    if (configuration) (this as { getConfiguration?: () => Record<string, unknown> }).getConfiguration = () => ({ ...configuration });
    this.taskId = lines.find((l) => l.kind === "scenario-start")?.taskId ?? "task";
  }

  on(event: string, l: (...args: unknown[]) => void): void {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)!.add(l);
  }
  off(event: string, l: (...args: unknown[]) => void): void { this.listeners.get(event)?.delete(l); }
  private emit(event: string, ...args: unknown[]): void { for (const l of this.listeners.get(event) ?? []) l(...args); }
  private message(m: RooMessage, action: "created" | "updated" = "created"): void { this.emit("message", { taskId: this.taskId, action, message: m }); }

  getCurrentTaskStack(): string[] { return [this.taskId]; }
  async startNewTask(): Promise<string> { return this.taskId; }
  async cancelCurrentTask(): Promise<void> {
    this.calls.push({ method: "cancelCurrentTask", args: [] });
    this.stopped = true;
    this.emit("taskAborted", this.taskId);
    setTimeout(() => { this.resumeAskTs = ++this.clock + 1e15; this.message({ ts: this.resumeAskTs, type: "ask", ask: "resume_task", text: "" }); }, 5);
  }
  async sendMessage(text?: string): Promise<void> {
    this.calls.push({ method: "sendMessage", args: [text] });
    if (this.resumeAskTs !== undefined) {
      this.resumeAskTs = undefined;
      this.message({ ts: ++this.clock + 1e15, type: "say", say: "user_feedback", text: text ?? "" });
      this.emit("taskAskResponded", this.taskId);
    }
  }
  async deleteQueuedMessage(id: string): Promise<void> { this.calls.push({ method: "deleteQueuedMessage", args: [id] }); }
  isReady(): boolean { return true; }

  /** Plays the recording until its end or a cancel. */
  async play(): Promise<void> {
    for (const line of this.lines) {
      if (this.stopped) return;
      const ev = apiEventOf(line);
      if (!ev) continue;
      if (ev.name === "message") this.clock = Math.max(this.clock, line.ts ?? 0);
      this.emit(ev.name, ...ev.args);
      await new Promise((r) => setImmediate(r));
    }
  }
}
