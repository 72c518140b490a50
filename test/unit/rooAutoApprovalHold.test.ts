/**
 * The refusal lands on the call it names under Roo's auto-approval: once a tool loop is warned,
 * Roo's auto-approval is held, the next calls wait at their approval asks, Loop Sentinel approves
 * what the user's settings would have and refuses the call the engine refuses; the switch is put
 * back afterwards, and a hold that a crash left behind is undone at the next connection.
 *
 * The Roo here plays one `execute_command ls` per request in the order the real Roo 3.52.1 emitted
 * it (test/fixtures/roo-real/run2-code.tool.jsonl): with auto-approval on, `taskAskResponded` comes
 * right after the partial ask and before the complete one; with it off, the complete ask waits for
 * an answer (approve: the command runs; a message: the call is denied with it as feedback). A
 * message sent while busy is queued and drained at the next approval ask as approval with feedback.
 */
import * as assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LoopSession, type Intervention } from "../../src/engine/session";
import { RooConnection } from "../../src/hosts/roo/connection";
import { AutoApprovalHold, fileHoldStore, type HoldStore } from "../../src/hosts/roo/autoApprovalHold";
import type { HostSessionEvent } from "../../src/hosts/hostAdapter";
import { loadRecording } from "./rooRealKit";

const TASK = "task-1";
const tick = (ms = 2) => new Promise((r) => setTimeout(r, ms));

/** A Roo that repeats `ls` every request until cancelled, with the real host's event order. */
class LoopingRoo extends EventEmitter {
  config: Record<string, unknown> = { autoApprovalEnabled: true, alwaysAllowExecute: true, allowedCommands: ["*"], alwaysAllowReadOnly: true };
  ran = 0;
  denied: string[] = [];
  approvedByFeedback: string[] = [];
  cancelled = false;
  toggles = 0;
  private ts = 1_000;
  private waiting: ((answer: { approve: boolean; text?: string }) => void) | undefined;
  private queue: string[] = [];
  private busy = false;

  getCurrentTaskStack(): string[] { return this.cancelled ? [TASK] : [TASK]; }
  isReady(): boolean { return true; }
  getConfiguration(): Record<string, unknown> { return { ...this.config }; }
  async startNewTask(): Promise<string> { return TASK; }
  async toggleAutoApprove(): Promise<void> {
    this.toggles++;
    // Roo's chat view flips its own copy and posts the new value back: a moment later.
    await tick(3);
    this.config.autoApprovalEnabled = !(this.config.autoApprovalEnabled === true);
  }
  async pressPrimaryButton(): Promise<void> {
    const w = this.waiting;
    if (!w) return;
    this.waiting = undefined;
    w({ approve: true });
  }
  async sendMessage(text?: string): Promise<void> {
    const w = this.waiting;
    if (w) { this.waiting = undefined; w({ approve: false, text }); return; }
    if (this.busy && text) { this.queue.push(text); this.emit("queuedMessagesUpdated", TASK, this.queue.map((t, i) => ({ id: `q${i}`, text: t }))); }
  }
  async cancelCurrentTask(): Promise<void> {
    this.cancelled = true;
    const w = this.waiting;
    this.waiting = undefined;
    w?.({ approve: false });
    this.emit("taskAborted", TASK);
    await tick();
    this.emit("taskCreated", TASK);
    this.message("created", { ts: ++this.ts, type: "ask", ask: "resume_task" });
  }

  private message(action: "created" | "updated", m: Record<string, unknown>): void {
    this.emit("message", { taskId: TASK, action, message: { ...m } });
  }

  /** One request ending in `ls`, in the recorded order; resolves when the next request may start. */
  private async call(n: number): Promise<void> {
    const req = ++this.ts;
    const ask = ++this.ts;
    this.busy = true;
    this.message("created", { ts: req, type: "say", say: "api_req_started", text: JSON.stringify({ apiProtocol: "openai" }) });
    await tick();
    this.message("created", { ts: ask, type: "ask", ask: "command", partial: true, text: "" });
    const auto = this.config.autoApprovalEnabled === true;
    let answer: { approve: boolean; text?: string } = { approve: true };
    if (auto) this.emit("taskAskResponded", TASK);
    this.message("updated", { ts: req, type: "say", say: "api_req_started", text: JSON.stringify({ apiProtocol: "openai", tokensIn: 1000 + 30 * n, tokensOut: 20, cost: 0 }) });
    this.message("updated", { ts: ask, type: "ask", ask: "command", partial: false, text: "ls" });
    if (this.queue.length) {
      // Roo drains its queue at the ask: the call is approved, the text goes with its result.
      const text = this.queue.shift()!;
      this.approvedByFeedback.push(text);
      this.message("created", { ts: ++this.ts, type: "say", say: "user_feedback", text });
      if (!auto) this.emit("taskAskResponded", TASK);
    } else if (!auto) {
      answer = await new Promise((resolve) => { this.waiting = resolve; });
      if (this.cancelled) return;
      this.emit("taskAskResponded", TASK);
    }
    if (!answer.approve) {
      this.denied.push(answer.text ?? "");
      if (answer.text) this.message("created", { ts: ++this.ts, type: "say", say: "user_feedback", text: answer.text });
      return;
    }
    this.ran++;
    const out = ++this.ts;
    this.message("created", { ts: out, type: "ask", ask: "command_output", text: "" });
    this.message("created", { ts: out, type: "say", say: "command_output", partial: true, text: "README.md\n" });
    await tick();
    this.emit("taskAskResponded", TASK);
    this.message("updated", { ts: out, type: "say", say: "command_output", partial: false, text: "README.md\nsrc\n" });
    this.busy = false;
  }

  async play(maxCalls: number): Promise<void> {
    this.message("created", { ts: ++this.ts, type: "say", say: "text", text: "List the files in this project." });
    for (let n = 1; n <= maxCalls && !this.cancelled; n++) {
      await this.call(n);
      await tick(4);
    }
  }
}

/** Loop Sentinel's side as the extension wires it: the engine per task, each verdict acted on in order. */
function guard(roo: LoopingRoo, hold: AutoApprovalHold | undefined) {
  const engine = new LoopSession();
  const acted: Intervention[] = [];
  let chain: Promise<unknown> = Promise.resolve();
  const log: string[] = [];
  const connection = new RooConnection({
    hostId: "roo-code", label: "Roo Code", api: roo as never, log: (l) => log.push(l), autoApproval: hold,
    timing: { settleMs: 5, confirmMs: 200, resumeAskTimeoutMs: 500, askCompleteTimeoutMs: 200, deliveryTimeoutMs: 2000 },
    emit: (e: HostSessionEvent) => {
      const ivs = engine.push(e.event);
      e.onInterventions?.(ivs);
      for (const iv of ivs) { acted.push(iv); chain = chain.then(() => connection.act(e.taskId, iv)); }
    },
  });
  return { connection, acted, log, settled: () => chain };
}

function holdFor(roo: LoopingRoo, store?: HoldStore, pid?: number, alive?: (pid: number) => boolean): AutoApprovalHold {
  return new AutoApprovalHold({
    key: "rooveterinaryinc.roo-cline", label: "Roo Code", store, log: () => undefined, confirmMs: 500, pid, alive,
    switch: { enabled: () => (typeof roo.config.autoApprovalEnabled === "boolean" ? roo.config.autoApprovalEnabled : undefined), toggle: () => roo.toggleAutoApprove() },
  });
}

describe("Roo auto-approval held while a tool loop is on its ladder", () => {
  it("the recorded real Roo auto-approves before the complete ask: the order this Roo plays", () => {
    const lines = loadRecording("run2-code.tool").filter((l) => l.kind === "roo");
    const firstAsk = lines.findIndex((l) => l.ev === "message" && l.ask === "command");
    const responded = lines.findIndex((l, i) => i > firstAsk && l.ev === "taskAskResponded");
    const complete = lines.findIndex((l, i) => i > firstAsk && l.ev === "message" && l.ask === "command" && l.partial === false);
    assert.ok(firstAsk >= 0 && responded > firstAsk && complete > responded, "approved before its ask completed");
  });

  it("without a hold, the refusal decided on the 5th call lands after Roo ran it (the issue's figure)", async () => {
    const roo = new LoopingRoo();
    const g = guard(roo, undefined);
    await roo.play(12);
    await g.settled();
    g.connection.dispose();
    assert.ok(roo.ran >= 5, `calls that ran: ${roo.ran}`);
  });

  it("with the hold: calls 1-4 run, the 5th and 6th are refused at their asks, the 7th stops the task; the switch is back on", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-hold-"));
    const store = fileHoldStore(path.join(dir, "holds.json"));
    const roo = new LoopingRoo();
    const hold = holdFor(roo, store);
    const g = guard(roo, hold);
    const seenRecord: boolean[] = [];
    roo.on("message", () => seenRecord.push(Object.keys(store.read()).length > 0));
    await roo.play(12);
    await g.settled();
    for (let i = 0; i < 100 && (hold.held || roo.config.autoApprovalEnabled !== true); i++) await tick(10);
    g.connection.dispose();
    assert.deepEqual(g.acted.map((iv) => iv.action), ["warn", "block", "block", "stop"], `ran ${roo.ran}, denied ${roo.denied.length}, fed ${roo.approvedByFeedback.length}; log: ${g.log.join(" | ")}`);
    assert.equal(roo.ran, 4, `calls that ran: ${roo.ran}; log: ${g.log.join(" | ")}`);
    assert.equal(roo.denied.length, 2, "the 5th and 6th were refused at their asks");
    assert.ok(roo.denied.every((t) => t.startsWith("Loop Sentinel refused this call")), roo.denied.join("\n"));
    assert.equal(roo.cancelled, true, "the 7th stopped the task");
    // The warning, sent while call 3 ran, went with call 4 (Roo drained it as approval with feedback).
    assert.equal(roo.approvedByFeedback.length, 1);
    assert.match(roo.approvedByFeedback[0], /^Loop Sentinel: /);
    assert.equal(roo.config.autoApprovalEnabled, true, "auto-approval back on");
    assert.equal(roo.toggles, 2, "turned off once and back on once");
    assert.ok(seenRecord.includes(true), "the hold was written down while it lasted");
    assert.deepEqual(store.read(), {}, "and cleared after");
  });

  it("a user who turned auto-approval back on during the hold is not overruled", async () => {
    const roo = new LoopingRoo();
    const hold = holdFor(roo);
    assert.equal(await hold.hold(), true);
    assert.equal(roo.config.autoApprovalEnabled, false);
    roo.config.autoApprovalEnabled = true; // the user's click
    await hold.release("test");
    assert.equal(roo.toggles, 1, "not flipped again");
    assert.equal(roo.config.autoApprovalEnabled, true);
  });

  it("holds nothing when auto-approval is off already, and leaves it off", async () => {
    const roo = new LoopingRoo();
    roo.config.autoApprovalEnabled = false;
    const hold = holdFor(roo);
    assert.equal(await hold.hold(), false);
    await hold.release("test");
    assert.equal(roo.toggles, 0);
  });

  it("a hold left by a crashed Loop Sentinel is undone at the next connection; one held by a live other window is not", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ls-hold-"));
    const store = fileHoldStore(path.join(dir, "holds.json"));
    // The first life holds, then dies without releasing (no dispose, no deactivate).
    const roo = new LoopingRoo();
    const first = holdFor(roo, store, 4242, () => false);
    assert.equal(await first.hold(), true);
    assert.equal(roo.config.autoApprovalEnabled, false);
    assert.equal(store.read()["rooveterinaryinc.roo-cline"]?.pid, 4242);
    // Another window's Loop Sentinel, whose holder is alive: left alone.
    await holdFor(roo, store, 5151, () => true).recover();
    assert.equal(roo.config.autoApprovalEnabled, false);
    // The next life, after the holder's process is gone.
    await holdFor(roo, store, 5151, () => false).recover();
    assert.equal(roo.config.autoApprovalEnabled, true, "switched back on");
    assert.deepEqual(store.read(), {});
    // An earlier activation in this same process (reloaded extension) is gone too.
    const again = holdFor(roo, store, 6161, () => true);
    assert.equal(await again.hold(), true);
    await holdFor(roo, store, 6161, () => true).recover();
    assert.equal(roo.config.autoApprovalEnabled, true);
  });
});
