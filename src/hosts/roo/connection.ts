/**
 * One live connection to a Roo-compatible API object: its events in (through the translator, one
 * engine session per task id), Loop Sentinel's actions out, in the sequences that work from outside
 * Roo (shared notes hosts/roo.md §3.4):
 * - abort: cancelCurrentTask() → wait for the `resume_task` ask → sendMessage(guidance);
 * - block: approval ask waiting → sendMessage(feedback) refuses the call; the call will be (or was)
 *   auto-approved → cancel, then guidance as for abort;
 * - stop: cancel and leave the task at Roo's resume prompt for the user;
 * - warn: sendMessage(guidance), which Roo queues while busy and hands to the model with the next
 *   tool result; never used to answer an approval or a question meant for the user.
 * Guidance counts as delivered only when Roo echoes it back as the user's message (`user_feedback`),
 * which it does when it hands it to the model. The real Roo 3.52 sometimes takes a warning sent just
 * as an auto-approved command starts as that command's input, and never drains a queued one in a
 * mode that refuses every call: a new request that starts without the echo means it was not
 * delivered, and a warning is then re-sent the way that always arrives (cancel, resume with it).
 *
 * Auto-approval and the ladder: Roo approves an auto-approved call the moment its ask completes, so
 * a refusal decided on that ask lands one call late. Once a tool loop has been warned, the host's
 * auto-approval is held (see AutoApprovalHold): each call then waits at its approval ask, and
 * Loop Sentinel answers it, refusing the call the engine refuses and approving the rest exactly
 * when the user's own per-tool settings would have. The hold ends when the loop does (stopped, the
 * task finished or was left, a different call) and the switch is put back.
 * No vscode import: driven in unit tests by an object with Roo's semantics.
 */
import type { Intervention } from "../../engine/session";
import { BoundedMap } from "../../engine/boundedMap";
import type { ActionOutcome, HostSessionEvent } from "../hostAdapter";
import type { RooApiLike, RooListener } from "./api";
import { APPROVAL_ASKS, RESUME_ASKS, snapshotMessageEvent, type RooMessage } from "./messages";
import { predictAutoApproval } from "./autoApproval";
import type { AutoApprovalHold } from "./autoApprovalHold";
import { RooTranslator, toolCallId } from "./translator";

export interface ActionTiming {
  /** How long to wait for Roo's resume question after a cancel (Roo: ~200 ms). */
  resumeAskTimeoutMs: number;
  /** Pause between the resume question and the guidance, so Roo's chat has taken the question. */
  settleMs: number;
  /** How long to wait for a partial approval ask to complete before deciding how to refuse it. */
  askCompleteTimeoutMs: number;
  /** How long to wait for Roo to confirm that a refusal was taken. */
  confirmMs: number;

  /** How long sent guidance may wait for Roo's echo when no new request starts either (the task went idle). */
  deliveryTimeoutMs: number;
}

export const ROO_ACTION_TIMING: ActionTiming = { resumeAskTimeoutMs: 5000, settleMs: 300, askCompleteTimeoutMs: 5000, confirmMs: 3000, deliveryTimeoutMs: 60_000 };

/** A hold of auto-approval that nothing ended is given up after this long. */
const MAX_HOLD_MS = 5 * 60_000;

/** Tasks whose action state is kept (older ones are long finished). */
const MAX_TASKS = 64;
/** Own guidance texts remembered per task until Roo echoes them back. */
const MAX_PENDING_ECHOES = 16;

interface AskState {
  ts: number;
  ask: string;
  complete: boolean;
  answered: boolean;
}

type DeliveryResult = "delivered" | "missed" | "superseded" | "timeout";

/** Guidance sent and not yet seen coming back from Roo as the user's message. */
interface PendingDelivery {
  text: string;
  /** Requests that started since it was sent: one starting without the echo means it missed. */
  requestsSince: number;
  /** Sent as the answer to a question Roo was asking (resume, approval): Roo takes it at once. */
  answersAsk: boolean;
  /** Roo's id for it while it sits in Roo's message queue. */
  queuedId?: string;
  settle(result: DeliveryResult): void;
}

interface MessageWaiter {
  match(m: RooMessage): boolean;
  resolve(m: RooMessage | undefined): void;
}

class TaskActivity {
  lastAsk: AskState | undefined;
  echoes: string[] = [];
  messageWaiters: MessageWaiter[] = [];
  answerWaiters: Array<() => void> = [];
  /** Guidance held back while an approval or question waits for the user. */
  deferredGuidance: { text: string; sent(delivery: Promise<DeliveryResult> | undefined): void } | undefined;
  answeredAsks = new BoundedMap<number, true>(64);
  deliveries: PendingDelivery[] = [];
  /** Roo's ids of our guidance waiting in its message queue. */
  queuedIds: string[] = [];
  /** Actions in progress on this task (a missed warning is re-sent only when none is). */
  acting = 0;
  /** The task's actions, one after another. */
  chain: Promise<unknown> = Promise.resolve();
}

export interface RooConnectionOptions {
  hostId: string;
  label: string;
  api: RooApiLike;
  emit(e: HostSessionEvent): void;
  log(line: string): void;
  now?(): number;
  timing?: Partial<ActionTiming>;
  /** The host's auto-approval switch, held while a warned tool loop goes on (none: refusals of auto-approved calls may land a call late). */
  autoApproval?: AutoApprovalHold;
}

/** The warned loop that auto-approval is held for: its task and the call that repeats. */
interface HeldLoop {
  taskId: string;
  tool: string;
  target: string | undefined;
  timer: ReturnType<typeof setTimeout>;
}

function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export class RooConnection {
  readonly api: RooApiLike;
  private readonly translator: RooTranslator;
  private readonly activity = new BoundedMap<string, TaskActivity>(MAX_TASKS);
  private readonly seenTasks = new BoundedMap<string, true>(1024);
  private readonly listeners: Array<[string, RooListener]> = [];
  private readonly timing: ActionTiming;
  private readonly now: () => number;
  private badPayloads = 0;
  private disposed = false;
  private held: HeldLoop | undefined;

  constructor(private readonly options: RooConnectionOptions) {
    this.api = options.api;
    this.timing = { ...ROO_ACTION_TIMING, ...options.timing };
    this.now = options.now ?? (() => Date.now());
    this.translator = new RooTranslator((taskId) => ({ isOwnEcho: (text) => this.consumeEcho(taskId, text) }), MAX_TASKS);
    this.listen("message", (payload) => this.onMessage(payload));
    this.listen("taskAskResponded", (taskId) => this.onAskResponded(taskId));
    this.listen("taskToolFailed", (taskId, tool, error) => this.onToolFailed(taskId, tool, error));
    this.listen("taskCreated", (taskId) => { if (typeof taskId === "string") this.seenTasks.set(taskId, true); });
    this.listen("queuedMessagesUpdated", (taskId, queue) => this.onQueueUpdated(taskId, queue));
  }

  /** Tasks seen since connecting. */
  get sessions(): number { return this.seenTasks.size; }

  /** Whether this connection has seen the task (actions go to the connection that owns it). */
  knows(taskId: string): boolean { return this.seenTasks.peek(taskId) !== undefined; }

  dispose(): void {
    this.disposed = true;
    this.releaseHold("Loop Sentinel stopped watching");
    for (const [event, listener] of this.listeners) {
      try {
        if (typeof this.api.off === "function") this.api.off(event, listener);
        else this.api.removeListener?.(event, listener);
      } catch { /* the host may already be gone */ }
    }
    this.listeners.length = 0;
    for (const a of this.activity.values()) {
      for (const w of a.messageWaiters) w.resolve(undefined);
      a.messageWaiters = [];
      for (const d of [...a.deliveries]) d.settle("superseded");
      a.deferredGuidance?.sent(undefined);
      a.deferredGuidance = undefined;
    }
  }

  /** A listener that can never throw into Roo's emitter (that would break Roo's own task loop). */
  private listen(event: string, handler: (...args: unknown[]) => void): void {
    const listener: RooListener = (...args) => {
      if (this.disposed) return;
      try { handler(...args); } catch (err) { this.options.log(`${this.options.label}: ${event} event not handled: ${(err as Error).stack ?? String(err)}`); }
    };
    this.api.on(event, listener);
    this.listeners.push([event, listener]);
  }

  private task(taskId: string): TaskActivity {
    let a = this.activity.get(taskId);
    if (!a) { a = new TaskActivity(); this.activity.set(taskId, a); }
    return a;
  }

  // ---- events in -------------------------------------------------------------------------------

  private onMessage(payload: unknown): void {
    // Copied at once: Roo keeps mutating the object it emitted.
    const e = snapshotMessageEvent(payload);
    if (!e) {
      if (this.badPayloads++ < 3) this.options.log(`${this.options.label}: ignored a message event of an unexpected shape`);
      return;
    }
    const { taskId, action, message: m } = e;
    this.seenTasks.set(taskId, true);
    const a = this.task(taskId);
    this.trackAsk(a, m);
    if (action === "created" && m.type === "say" && m.say === "api_req_started" && a.deliveries.length) this.requestStarted(a);
    const t = this.translator.task(taskId);
    const events = t.message(action, m, this.now());
    const held = this.held?.taskId === taskId ? this.held : undefined;
    /** The engine's verdicts on a call first seen in this message, while auto-approval is held for its task. */
    let verdicts: Intervention[] | undefined;
    for (const event of events) {
      const e: HostSessionEvent = { hostId: this.options.hostId, taskId, title: t.title, event };
      if (held && event.t === "tool_call") e.onInterventions = (ivs) => { verdicts = [...(verdicts ?? []), ...ivs]; };
      this.options.emit(e);
    }
    if (held) this.whileHeld(taskId, a, m, verdicts);
    if (a.messageWaiters.length) {
      const ready = a.messageWaiters.filter((w) => w.match(m));
      if (ready.length) {
        a.messageWaiters = a.messageWaiters.filter((w) => !ready.includes(w));
        for (const w of ready) w.resolve(m);
      }
    }
  }

  private trackAsk(a: TaskActivity, m: RooMessage): void {
    if (m.type !== "ask") {
      // Anything said after a complete ask means it is no longer waiting.
      if (a.lastAsk && a.lastAsk.complete && m.ts > a.lastAsk.ts) a.lastAsk.answered = true;
      return;
    }
    if (m.ask === "command_output") return; // never blocks
    if (!a.lastAsk || a.lastAsk.ts !== m.ts) {
      if (a.lastAsk && m.ts > a.lastAsk.ts) a.lastAsk.answered = true;
      a.lastAsk = { ts: m.ts, ask: m.ask ?? "", complete: false, answered: a.answeredAsks.peek(m.ts) !== undefined };
    }
    if (m.partial !== true) a.lastAsk.complete = true;
    if (m.isAnswered) a.lastAsk.answered = true;
  }

  private onAskResponded(taskId: unknown): void {
    if (typeof taskId !== "string") return;
    const a = this.activity.peek(taskId);
    if (!a) return;
    // Roo sends taskAskResponded as soon as an ask is answered, auto-approval included: with
    // auto-approval it arrives before the complete ask itself.
    if (a.lastAsk) { a.lastAsk.answered = true; a.answeredAsks.set(a.lastAsk.ts, true); }
    const waiters = a.answerWaiters;
    a.answerWaiters = [];
    for (const w of waiters) w();
    if (a.deferredGuidance !== undefined) {
      const held = a.deferredGuidance;
      a.deferredGuidance = undefined;
      void this.send(taskId, held.text).then(
        ({ delivery }) => held.sent(delivery),
        (err) => { this.options.log(`${this.options.label}: held guidance not sent: ${String(err)}`); held.sent(undefined); },
      );
    }
  }

  private onToolFailed(taskId: unknown, tool: unknown, error: unknown): void {
    if (typeof taskId !== "string" || typeof tool !== "string") return;
    const t = this.translator.peek(taskId);
    if (!t) return;
    for (const event of t.toolFailed(tool, typeof error === "string" ? error : String(error), this.now())) {
      this.options.emit({ hostId: this.options.hostId, taskId, title: t.title, event });
    }
  }

  private consumeEcho(taskId: string, text: string): boolean {
    const a = this.activity.peek(taskId);
    if (!a || a.echoes.length === 0) return false;
    const normalised = normalise(text);
    const i = a.echoes.indexOf(normalised);
    if (i === -1) return false;
    a.echoes.splice(i, 1);
    a.deliveries.find((d) => d.text === normalised)?.settle("delivered");
    return true;
  }

  /** A new request began: guidance sent before the previous one started and still not echoed missed it. */
  private requestStarted(a: TaskActivity): void {
    for (const d of [...a.deliveries]) {
      if (++d.requestsSince >= 2 || (d.requestsSince >= 1 && d.queuedId === undefined)) d.settle("missed");
    }
  }

  private onQueueUpdated(taskId: unknown, queue: unknown): void {
    if (typeof taskId !== "string") return;
    const a = this.activity.peek(taskId);
    if (!a || !Array.isArray(queue)) return;
    for (const d of a.deliveries) {
      const q = queue.find((m): m is { id: string; text: string } => typeof m === "object" && m !== null && typeof (m as { id?: unknown }).id === "string" && normalise(String((m as { text?: unknown }).text ?? "")) === d.text);
      // Roo drains its queue at the next ask of the running request: a queued message waits one request longer.
      d.queuedId = q?.id;
    }
    a.queuedIds = queue.filter((m) => typeof m === "object" && m !== null && a.echoes.includes(normalise(String((m as { text?: unknown }).text ?? ""))))
      .map((m) => String((m as { id?: unknown }).id));
  }

  // ---- actions out -----------------------------------------------------------------------------

  /** Carries out one intervention. Never throws. */
  async act(taskId: string, iv: Intervention): Promise<ActionOutcome> {
    try {
      if (this.disposed) return { ok: false, done: `${this.options.label} is no longer connected; nothing sent` };
      const current = this.currentTask();
      if (current !== taskId) {
        return { ok: false, done: `not sent: ${this.options.label}'s API reaches only its current task${current ? "" : " (none is running)"}, and this task is not it` };
      }
      const a = this.task(taskId);
      // A warning still waiting in Roo's queue is overtaken by a stronger action (which carries its own
      // guidance); guidance already answering a question Roo asked is on its way and stays followed.
      // A stop cancels the task: nothing sent before it will reach the model now.
      if (iv.action !== "warn") for (const d of [...a.deliveries]) if (!d.answersAsk || iv.action === "stop") d.settle("superseded");
      a.acting++;
      try {
        return await this.serially(a, () => {
          // An earlier action on this task may have taken seconds (a resume that never came): by now
          // another task can be current, and Roo's API would act on that one instead.
          const now = this.currentTask();
          if (now !== taskId) return Promise.resolve({ ok: false, done: `not sent: by the time it was this action's turn, ${this.options.label}'s current task was ${now ? "another one" : "none"}` });
          return this.actOn(taskId, a, iv);
        });
      } finally {
        a.acting--;
      }
    } catch (err) {
      return { ok: false, done: `failed: ${(err as Error).message ?? String(err)}` };
    }
  }

  /** The ask Roo is waiting on an answer to, if any. */
  private waitingAsk(a: TaskActivity): AskState | undefined {
    return a.lastAsk && a.lastAsk.complete && !a.lastAsk.answered ? a.lastAsk : undefined;
  }

  private async actOn(taskId: string, a: TaskActivity, iv: Intervention): Promise<ActionOutcome> {
    {
      const waiting = this.waitingAsk(a);
      if (waiting?.ask === "mistake_limit_reached") {
        // Roo's own loop guard is asking the user: guidance is the answer it wants.
        const { delivery } = await this.send(taskId, iv.message);
        return this.pending(`answered ${this.options.label}'s "stuck in a loop" question with guidance`, delivery);
      }
      switch (iv.action) {
        case "warn": {
          // Sent first: the call running now has no ask waiting, so Roo queues it for the next call's
          // ask (with auto-approval held, a message sent then would answer that ask: deny the call).
          const outcome = await this.warn(taskId, a, waiting, iv.message);
          await this.holdFor(taskId, iv);
          return outcome;
        }
        case "abort":
          // The looping response ended in a call that Roo will ask approval for: denying that call with
          // the guidance ends the loop the same way, without a cancel and a resume (block's path
          // still cancels when Roo would auto-approve it or it already ran).
          if (a.lastAsk && APPROVAL_ASKS.has(a.lastAsk.ask) && !a.lastAsk.answered) return await this.block(taskId, a, { ...iv, toolCallId: toolCallId(a.lastAsk.ts) });
          return await this.cancelThenGuide(taskId, iv.message, "cancelled the running request");
        case "stop": {
          const outcome = await this.cancelThenGuide(taskId, undefined, "stopped the task");
          this.releaseHold("the loop was stopped");
          return outcome;
        }
        case "block": return await this.block(taskId, a, iv);
        default: return { ok: false, done: `unknown action "${String((iv as { action: unknown }).action)}"` };
      }
    }
  }

  // ---- auto-approval held for a warned loop ---------------------------------------------------

  /**
   * A warned tool loop whose next calls Roo would approve by itself: auto-approval is held, so that
   * the call the engine refuses next waits at an ask Loop Sentinel answers. Needs the chat view
   * (the switch and the approve button go through it).
   */
  private async holdFor(taskId: string, iv: Intervention): Promise<void> {
    const control = this.options.autoApproval;
    const tool = iv.evidence.tool;
    if (!control || tool === undefined || this.disposed) return;
    if (this.held) {
      if (this.held.taskId === taskId) return;
      this.releaseHold("another task became the one to watch");
    }
    if (this.safeIsReady() !== true || (typeof this.api.pressPrimaryButton !== "function" && typeof this.api.approveCurrentAsk !== "function")) return;
    if (this.safeConfiguration()?.autoApprovalEnabled !== true) return;
    const held: HeldLoop = { taskId, tool, target: iv.evidence.command ?? iv.evidence.path, timer: setTimeout(() => this.releaseHold(`nothing ended the loop within ${MAX_HOLD_MS / 60_000} minutes`), MAX_HOLD_MS) };
    this.held = held;
    // Not awaited: the switch goes through Roo's chat view (seconds on a busy machine), and the
    // task's next actions must not wait for it. Until it lands, Roo still approves by itself, and
    // approving an ask already answered does nothing.
    void (async () => {
      // A hold an earlier life left (its restore needs the chat view, which may not have been open then).
      await control.recover();
      if (!(await control.hold()) && this.held === held) {
        clearTimeout(held.timer);
        this.held = undefined;
      }
    })().catch((err: unknown) => this.options.log(`${this.options.label}: auto-approval not held: ${String(err)}`));
  }

  private releaseHold(why: string): void {
    const held = this.held;
    if (!held) return;
    clearTimeout(held.timer);
    this.held = undefined;
    void this.options.autoApproval?.release(why).catch((err: unknown) => this.options.log(`${this.options.label}: auto-approval not restored: ${String(err)}`));
  }

  /** A message of the task auto-approval is held for: answer its calls, or see the loop end. */
  private whileHeld(taskId: string, a: TaskActivity, m: RooMessage, verdicts: Intervention[] | undefined): void {
    if (m.partial === true) return;
    // A resume question our own cancel raised (an action in progress) is not the loop ending.
    if (m.type === "ask" && (m.ask === "completion_result" || (RESUME_ASKS.has(m.ask ?? "") && a.acting === 0))) { this.releaseHold("the task finished or stopped"); return; }
    if (this.currentTask() !== taskId) { this.releaseHold("the task is no longer the current one"); return; }
    // Only a call the engine has just seen (a complete ask is often sent twice).
    if (m.type !== "ask" || !APPROVAL_ASKS.has(m.ask ?? "") || verdicts === undefined) return;
    // Refused or cancelled by act(): Roo keeps the ask waiting for that answer.
    if (verdicts.some((iv) => iv.action !== "warn")) return;
    const info = this.translator.peek(taskId)?.askFor(toolCallId(m.ts));
    const config = this.safeConfiguration();
    const held = this.held;
    const target = held?.target?.trim();
    const sameLoop = !!held && info?.call?.name === held.tool && (!target || Object.values(info.call.input).some((v) => typeof v === "string" && (v.includes(target) || target.includes(v.trim()))));
    // What the user's own settings would have approved is approved; anything else waits for them, as it would have.
    const userApproves = !!info && !!config && predictAutoApproval({ ...config, autoApprovalEnabled: true }, info) === true;
    if (!sameLoop) this.releaseHold("the agent moved on to a different call");
    if (userApproves) void this.approve(taskId, a, m.ts, info?.call?.name ?? m.ask ?? "tool");
  }

  /** Approves the waiting ask `ts` on the user's behalf (auto-approval held); retried if Roo did not take it. */
  private async approve(taskId: string, a: TaskActivity, ts: number, tool: string): Promise<void> {
    await sleep(this.timing.settleMs);
    for (let attempt = 0; attempt < 3; attempt++) {
      const ask = a.lastAsk;
      if (this.disposed || !ask || ask.ts !== ts || ask.answered) return;
      if (this.currentTask() !== taskId) return;
      const answered = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), this.timing.confirmMs);
        a.answerWaiters.push(() => { clearTimeout(timer); resolve(true); });
      });
      try {
        if (typeof this.api.approveCurrentAsk === "function") await this.api.approveCurrentAsk();
        else await this.api.pressPrimaryButton?.();
      } catch (err) {
        this.options.log(`${this.options.label}: could not approve ${tool}: ${String(err)}`);
        return;
      }
      if (await answered) return;
    }
    this.options.log(`${this.options.label}: ${tool} waits for approval: Roo did not take Loop Sentinel's approval while auto-approval was held`);
  }

  private currentTask(): string | undefined {
    const stack = this.api.getCurrentTaskStack();
    return Array.isArray(stack) && stack.length ? stack[stack.length - 1] : undefined;
  }

  /** Sends guidance; the promise settles when Roo echoes it (delivered) or a request starts without it. */
  private async send(taskId: string, text: string): Promise<{ delivery: Promise<DeliveryResult> }> {
    const a = this.task(taskId);
    const normalised = normalise(text);
    a.echoes.push(normalised);
    if (a.echoes.length > MAX_PENDING_ECHOES) a.echoes.shift();
    const delivered = new Promise<DeliveryResult>((resolve) => {
      const timer = setTimeout(() => d.settle("timeout"), this.timing.deliveryTimeoutMs);
      const d: PendingDelivery = {
        text: normalised,
        requestsSince: 0,
        answersAsk: this.waitingAsk(a) !== undefined,
        settle: (result) => {
          clearTimeout(timer);
          a.deliveries = a.deliveries.filter((x) => x !== d);
          resolve(result);
        },
      };
      a.deliveries.push(d);
    });
    await this.api.sendMessage(text);
    // Wrapped: an async function would flatten a returned promise into its own.
    return { delivery: delivered };
  }

  private async warn(taskId: string, a: TaskActivity, waiting: AskState | undefined, message: string): Promise<ActionOutcome> {
    if (waiting && RESUME_ASKS.has(waiting.ask)) {
      const { delivery } = await this.send(taskId, message);
      return this.pending("resumed the task with the guidance", delivery);
    }
    if (waiting && (APPROVAL_ASKS.has(waiting.ask) || waiting.ask === "followup")) {
      // Sending now would answer the approval or question (denying the call): hold it until it is answered.
      a.deferredGuidance?.sent(undefined);
      const what = `guidance held until ${this.options.label}'s pending ${waiting.ask === "followup" ? "question" : "approval"} is answered, then sent`;
      const sent = new Promise<Promise<DeliveryResult> | undefined>((resolve) => { a.deferredGuidance = { text: message, sent: resolve }; });
      const outcome = this.pending(what, sent.then((d) => d ?? "superseded"), () => this.resendMissedWarning(taskId, a, message));
      return { ...outcome, done: `guidance held until ${this.options.label}'s pending ${waiting.ask === "followup" ? "question" : "approval"} is answered; then it goes with the next step` };
    }
    if (waiting) return { ok: false, done: `not sent: the task is waiting for you (${waiting.ask}); guidance now would restart it` };
    if (this.safeIsReady() === false) {
      // Without its chat view Roo hands a message only to a waiting ask; while busy it would be lost.
      return { ok: false, done: `not sent: ${this.options.label}'s chat view is not open, so a message now would be lost (only an abort can deliver guidance)` };
    }
    const { delivery } = await this.send(taskId, message);
    return this.pending("sent guidance", delivery, () => this.resendMissedWarning(taskId, a, message));
  }

  /**
   * A warning the model did not get with the next request: re-sent the way that always arrives, as
   * the answer to Roo's resume question after a cancel (its queued copy removed first).
   */
  private async resendMissedWarning(taskId: string, a: TaskActivity, message: string): Promise<ActionOutcome> {
    const missed = `the guidance did not reach the model: ${this.options.label} started the next request without it`;
    if (this.disposed || a.acting > 0) return { ok: false, done: `${missed}; a stronger action followed` };
    // Cancelling now would cancel the call waiting at its held ask; the refusal of the next repeat carries the guidance.
    if (this.held?.taskId === taskId) return { ok: false, done: `${missed}; not re-sent while auto-approval is held: the refusal of the next repeat carries the guidance` };
    if (this.currentTask() !== taskId) return { ok: false, done: `${missed}, and the task is no longer current` };
    a.acting++;
    try {
      const resent = await this.serially(a, async () => {
        for (const id of a.queuedIds.splice(0)) {
          try { await this.api.deleteQueuedMessage?.(id); } catch { /* gone already */ }
        }
        return this.cancelThenGuide(taskId, message, `${missed}; cancelled the running request`);
      });
      return resent.delivery ? await resent.delivery : resent;
    } finally {
      a.acting--;
    }
  }

  /**
   * One action at a time per task: two cancel → resume sequences interleaved would answer each
   * other's resume question. Later ones wait for the earlier (its delivery is followed apart).
   */
  private serially(a: TaskActivity, step: () => Promise<ActionOutcome>): Promise<ActionOutcome> {
    const run = a.chain.then(step, step);
    a.chain = run.catch(() => undefined);
    return run;
  }

  /** The outcome now ("sent…") and, once Roo shows it, whether the model got it. */
  private pending(what: string, delivery: Promise<DeliveryResult>, onMissed?: () => Promise<ActionOutcome>): ActionOutcome {
    const label = this.options.label;
    const settled = delivery.then(async (r): Promise<ActionOutcome> => {
      switch (r) {
        case "delivered": return { ok: true, done: `${what}; delivered (${label} passed it to the model)` };
        case "missed": return onMissed ? onMissed() : { ok: false, done: `${what}, but it was not delivered: ${label} started the next request without it` };
        case "superseded": return { ok: false, done: `${what}; not confirmed delivered before a stronger action followed` };
        default: return { ok: false, done: `${what}; not confirmed delivered: ${label} has not passed it on within ${Math.round(this.timing.deliveryTimeoutMs / 1000)} s` };
      }
    });
    return { ok: true, done: `${what}; waiting for ${label} to pass it to the model`, delivery: settled };
  }

  private async block(taskId: string, a: TaskActivity, iv: Intervention): Promise<ActionOutcome> {
    const info = iv.toolCallId ? this.translator.peek(taskId)?.askFor(iv.toolCallId) : undefined;
    if (!info || !a.lastAsk || a.lastAsk.ts !== info.ts) {
      // The call is no longer the latest ask (it ran, and the model moved on): stop the loop instead.
      return this.cancelThenGuide(taskId, iv.message, "the call had already run; cancelled the running request");
    }
    const tool = info.call?.name ?? info.ask;
    if (!a.lastAsk.complete && !a.lastAsk.answered) {
      const auto = predictAutoApproval(this.safeConfiguration(), info);
      if (auto !== false) {
        // Roo would approve it as soon as it completes, and run it: cancel before that.
        return this.cancelThenGuide(taskId, iv.message, `cancelled before Roo auto-approved ${tool}`);
      }
      // A mode that forbids the tool (Architect and `execute_command`) never completes the ask: Roo
      // refuses the call itself and asks the model again. That new request ends the wait at once; a
      // timeout alone let the loop run on for its whole length (5 requests on the real Roo 3.52).
      const done = await this.waitForMessage(taskId, (m) => (m.ts === info.ts && m.partial !== true) || (m.type === "say" && m.say === "api_req_started" && m.ts > info.ts), this.timing.askCompleteTimeoutMs);
      if (done?.ts !== info.ts) return this.cancelThenGuide(taskId, iv.message, `${tool} never reached its approval; cancelled the running request`);
    }
    if (a.lastAsk.answered) return this.cancelThenGuide(taskId, iv.message, `${tool} was auto-approved and ran; cancelled the running request`);
    return this.refuse(taskId, a, iv.message, tool);
  }

  /** Answers a waiting approval ask with text: Roo denies the call and gives the model the text. */
  private async refuse(taskId: string, a: TaskActivity, message: string, tool: string): Promise<ActionOutcome> {
    const answered = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), this.timing.confirmMs);
      a.answerWaiters.push(() => { clearTimeout(timer); resolve(true); });
    });
    const { delivery } = await this.send(taskId, message);
    const confirmed = await answered;
    return confirmed
      ? this.pending(`refused the pending ${tool} call with guidance`, delivery)
      : { ok: false, done: `sent guidance to refuse ${tool}, but ${this.options.label} did not confirm the answer` };
  }

  private safeIsReady(): boolean | undefined {
    try { return typeof this.api.isReady === "function" ? this.api.isReady() : undefined; } catch { return undefined; }
  }

  private safeConfiguration(): Record<string, unknown> | undefined {
    try { return this.api.getConfiguration?.(); } catch { return undefined; }
  }

  /**
   * Cancel → Roo rehydrates the task and asks `resume_task` → guidance answers that ask (the model
   * continues with it as the user's message). Without guidance the task waits for the user.
   */
  private async cancelThenGuide(taskId: string, guidance: string | undefined, what: string): Promise<ActionOutcome> {
    const started = this.now();
    const isResumeAsk = (m: RooMessage) => m.type === "ask" && RESUME_ASKS.has(m.ask ?? "") && m.partial !== true;
    // cancelCurrentTask() takes no id: whatever task is current when it runs is the one cancelled.
    if (this.currentTask() !== taskId) return { ok: false, done: `nothing cancelled: by then ${this.options.label}'s current task was another one` };
    let resumeAsk = this.waitForMessage(taskId, isResumeAsk, this.timing.resumeAskTimeoutMs);
    await this.api.cancelCurrentTask();
    let ask = await resumeAsk;
    if (!ask && typeof this.api.isTaskInHistory === "function" && typeof this.api.resumeTask === "function" && (await this.api.isTaskInHistory(taskId))) {
      resumeAsk = this.waitForMessage(taskId, isResumeAsk, this.timing.resumeAskTimeoutMs);
      await this.api.resumeTask(taskId);
      ask = await resumeAsk;
    }
    if (!ask) return { ok: false, done: `${what}, but ${this.options.label} did not offer to resume the task; guidance not sent` };
    if (guidance === undefined) return { ok: true, done: `${what}; the task waits at ${this.options.label}'s resume prompt for your guidance` };
    await sleep(this.timing.settleMs);
    if (this.currentTask() !== taskId) return { ok: false, done: `${what}, but another task became current; guidance not sent` };
    const { delivery } = await this.send(taskId, guidance);
    return this.pending(`${what} and resumed the task with guidance (${Math.round(this.now() - started)} ms)`, delivery);
  }

  private waitForMessage(taskId: string, match: (m: RooMessage) => boolean, timeoutMs: number): Promise<RooMessage | undefined> {
    const a = this.task(taskId);
    return new Promise((resolve) => {
      const waiter: MessageWaiter = {
        match,
        resolve: (m) => { clearTimeout(timer); resolve(m); },
      };
      const timer = setTimeout(() => {
        a.messageWaiters = a.messageWaiters.filter((w) => w !== waiter);
        resolve(undefined);
      }, timeoutMs);
      a.messageWaiters.push(waiter);
    });
  }
}
