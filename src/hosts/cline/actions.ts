/**
 * Interventions carried out through Cline's small API (`startNewTask`, `sendMessage`,
 * `pressPrimaryButton`, `pressSecondaryButton`; no events, no cancel): the host side only, the
 * "ask the user first" policy is the session manager's. No `vscode` here: the API object and the
 * notification are handed in, so the rules are tested in plain Node.
 *
 * - warn: `sendMessage` while Cline waits for a reply; otherwise held and sent when it next waits
 *   (a message sent while Cline streams is silently dropped by Cline).
 * - block: while Cline waits for approval of that call, a reply rejects it and carries the
 *   feedback (Cline treats any reply to an approval as a rejection with feedback). An auto-approved
 *   call has already run: the guidance is held like a warning.
 * - abort: Cline cannot cancel one response and go on; the guidance is held like a warning, and a
 *   loop that goes on reaches the stop rung.
 * - stop: "Stop and restart with guidance": `startNewTask` (which ends the looping task) with a
 *   summary of the task so far and the guidance.
 */
import type { Intervention } from "../../engine/session";
import type { ActionOutcome } from "../hostAdapter";
import { APPROVAL_ASKS, REPLY_ASKS } from "./messages";
import type { ClineTaskSnapshot } from "./watcher";

/** Cline's exported API (`saoudrizwan.claude-dev`, `src/exports/cline.d.ts`). */
export interface ClineApi {
  startNewTask(task?: string, images?: string[]): Promise<void>;
  sendMessage(message?: string, images?: string[]): Promise<void>;
  pressPrimaryButton(): Promise<void>;
  pressSecondaryButton(): Promise<void>;
}

/** The button label of Cline's stop: the looping task ends and a new one starts with guidance. */
export const STOP_AND_RESTART_LABEL = "Stop and restart with guidance";

export function isClineApi(v: unknown): v is ClineApi {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return ["startNewTask", "sendMessage", "pressPrimaryButton", "pressSecondaryButton"].every((k) => typeof o[k] === "function");
}

/** Sent texts remembered per task, to recognise them when they come back in the task file. */
const MAX_ECHOES = 32;
const MAX_HELD = 8;

export interface ClineActionDeps {
  /** Cline's API, or undefined while the extension is missing or inactive. */
  api(): ClineApi | undefined;
  snapshot(taskId: string): ClineTaskSnapshot | undefined;
  /** The task Cline is running now (its API acts on no other). */
  currentTaskId(): string | undefined;
  log(line: string): void;
}

function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export class ClineActions {
  private readonly sent = new Map<string, string[]>();
  private readonly held = new Map<string, string[]>();

  constructor(private readonly deps: ClineActionDeps) {}

  /** True when `text`, seen in task `taskId`, is something Loop Sentinel sent. */
  isEcho(taskId: string, text: string): boolean {
    const t = normalise(text);
    return t !== "" && (this.sent.get(taskId)?.includes(t) ?? false);
  }

  /** `refusedByHook`: Loop Sentinel's PreToolUse hook already refused the call (Cline cancelled the task). */
  async act(taskId: string, iv: Intervention, refusedByHook = false): Promise<ActionOutcome> {
    try {
      return await this.perform(taskId, iv, refusedByHook);
    } catch (err) {
      return { done: `Cline's API failed: ${(err as Error).message ?? String(err)}`, ok: false };
    }
  }

  /** The task file changed: deliver held guidance if Cline now waits for a reply. */
  async onTaskChange(taskId: string): Promise<void> {
    const pending = this.held.get(taskId);
    if (!pending?.length) return;
    const api = this.deps.api();
    if (!api || this.deps.currentTaskId() !== taskId || this.waitingFor(taskId) !== "reply") return;
    this.held.delete(taskId);
    const text = pending.join("\n\n");
    try {
      await this.send(api, taskId, text);
      this.deps.log(`Cline task ${taskId}: sent held guidance now that Cline waits for a reply`);
    } catch (err) {
      this.deps.log(`Cline task ${taskId}: could not send held guidance: ${(err as Error).message}`);
    }
  }

  private async perform(taskId: string, iv: Intervention, refusedByHook: boolean): Promise<ActionOutcome> {
    const api = this.deps.api();
    if (!api) return { done: "Cline's API is not available (extension missing or not active): nothing sent", ok: false };
    const snap = this.deps.snapshot(taskId);
    if (!snap) return { done: "task not found in Cline's task files: nothing sent", ok: false };
    if (this.deps.currentTaskId() !== taskId) return { done: "not Cline's current task (its API only reaches the open one): nothing sent", ok: false };

    if (iv.action === "stop") {
      await api.startNewTask(snap.digest.restartPrompt(iv.message));
      this.held.delete(taskId);
      return { done: `${STOP_AND_RESTART_LABEL}: ended the looping task and started a new one with a summary and the guidance`, ok: true };
    }
    const waiting = this.waitingFor(taskId);
    if (iv.action === "block" && waiting === "approval" && this.approvalIsFor(snap, iv.toolCallId)) {
      await this.send(api, taskId, iv.message);
      return { done: "refused the pending call (a reply to Cline's approval rejects it) and sent the guidance", ok: true };
    }
    if (waiting === "reply") {
      await this.send(api, taskId, iv.message);
      return { done: refusedByHook ? "refused the call through the PreToolUse hook, then resumed the task with the guidance" : "sent the guidance (Cline was waiting for a reply)", ok: true };
    }
    if (snap.layout === "v4") {
      return { done: "Cline v4 does not show in its files when it waits for a reply, so the guidance was not sent", ok: false };
    }
    const queue = this.held.get(taskId) ?? [];
    if (!queue.includes(iv.message)) queue.push(iv.message);
    if (queue.length > MAX_HELD) queue.shift();
    this.held.set(taskId, queue);
    const why = refusedByHook ? "the PreToolUse hook refused the call and Cline cancelled the task"
      : iv.action === "block" ? "Cline already ran the call (auto-approved)" : iv.action === "abort" ? "Cline cannot cancel a response from outside" : "Cline is busy";
    return { done: `${why}: guidance held until Cline waits for a reply`, ok: true, deferred: true };
  }

  /** What Cline's last message waits for, if anything. */
  private waitingFor(taskId: string): "reply" | "approval" | undefined {
    const m = this.deps.snapshot(taskId)?.lastMessage;
    if (!m || m.type !== "ask" || m.partial === true || !m.ask) return undefined;
    if (REPLY_ASKS.has(m.ask)) return "reply";
    if (APPROVAL_ASKS.has(m.ask)) return "approval";
    return undefined;
  }

  /** The pending approval is the call the engine wants refused (ids are `cline-<message ts>`). */
  private approvalIsFor(snap: ClineTaskSnapshot, toolCallId: string | undefined): boolean {
    return toolCallId === undefined || toolCallId === `cline-${snap.lastMessage?.ts}`;
  }

  private async send(api: ClineApi, taskId: string, text: string): Promise<void> {
    // Remembered first: Cline writes the echo to its file before the promise settles.
    const list = this.sent.get(taskId) ?? [];
    list.push(normalise(text));
    if (list.length > MAX_ECHOES) list.shift();
    this.sent.set(taskId, list);
    await api.sendMessage(text);
  }
}
