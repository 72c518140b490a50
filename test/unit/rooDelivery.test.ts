/**
 * Whether guidance reached the model, judged from the real Roo's own events (recordings in
 * test/fixtures/roo-real): the echo as `user_feedback` means delivered; a new request without it
 * means missed, and a missed warning is re-sent through cancel → resume.
 */
import * as assert from "node:assert/strict";
import type { ActionOutcome } from "../../src/hosts/hostAdapter";
import type { RooApiLike } from "../../src/hosts/roo/api";
import { RooConnection } from "../../src/hosts/roo/connection";
import { LoopSession } from "../../src/engine/session";
import { loadRecording, RecordedRoo } from "./rooRealKit";

const TIMING = { resumeAskTimeoutMs: 500, settleMs: 5, askCompleteTimeoutMs: 200, confirmMs: 200, deliveryTimeoutMs: 2000 };

async function runLive(name: string, opts: { untilAction?: number } = {}) {
  const api = new RecordedRoo(loadRecording(name));
  const session = new LoopSession();
  const outcomes: Array<{ action: string; first: ActionOutcome; final?: ActionOutcome }> = [];
  const pending: Promise<void>[] = [];
  const conn = new RooConnection({
    hostId: "roo-code", label: "Roo Code", api: api as unknown as RooApiLike, log: () => undefined, timing: TIMING,
    emit: (e) => {
      for (const iv of session.push(e.event)) {
        if (opts.untilAction !== undefined && outcomes.length >= opts.untilAction) continue;
        const entry: { action: string; first: ActionOutcome; final?: ActionOutcome } = { action: iv.action, first: { ok: false, done: "" } };
        outcomes.push(entry);
        pending.push(conn.act(e.taskId, iv).then(async (o) => { entry.first = o; if (o.delivery) entry.final = await o.delivery; }));
      }
    },
  });
  await api.play();
  await Promise.all(pending);
  conn.dispose();
  return { api, outcomes };
}

describe("Roo guidance delivery, on the real Roo's recorded events", () => {
  it("Code mode: the warning sent as an auto-approved command starts never comes back, so it is re-sent by cancel → resume, and that one arrives", async () => {
    const { api, outcomes } = await runLive("run2-code.tool", { untilAction: 1 });
    assert.equal(outcomes[0].action, "warn");
    assert.match(outcomes[0].first.done, /waiting for Roo Code to pass it to the model/);
    assert.ok(outcomes[0].final, "delivery followed");
    assert.ok(outcomes[0].final!.ok, outcomes[0].final!.done);
    assert.match(outcomes[0].final!.done, /did not reach the model: Roo Code started the next request without it; cancelled the running request and resumed the task with guidance .*; delivered/);
    assert.deepEqual(api.calls.map((c) => c.method), ["sendMessage", "cancelCurrentTask", "sendMessage"]);
    assert.equal(api.calls[0].args[0], api.calls[2].args[0], "the same guidance, re-sent");
  });

  it("Architect mode: the queued warning is never drained; it is re-sent the same way and the loop still ends", async () => {
    const { api, outcomes } = await runLive("run1-architect.tool", { untilAction: 1 });
    assert.equal(outcomes[0].action, "warn");
    assert.ok(outcomes[0].final?.ok, outcomes[0].final?.done);
    assert.ok(api.calls.some((c) => c.method === "cancelCurrentTask"));
  });

  it("Architect mode with auto-approval held: a refusal decided on a call Roo forbids itself ends the loop at Roo's next request, not after a wait for an ask that never completes", async () => {
    // Roo streams a partial command ask, refuses the call (the mode forbids it) and asks the model again:
    // the ask never completes. Waiting for it let the real Roo make five more requests.
    const api = new RecordedRoo(loadRecording("run1-architect.tool"), { autoApprovalEnabled: false, alwaysAllowExecute: true, allowedCommands: ["*"] });
    let outcome: Promise<ActionOutcome> | undefined;
    let requestsBeforeCancel = 0;
    const conn = new RooConnection({
      hostId: "roo-code", label: "Roo Code", api: api as unknown as RooApiLike, log: () => undefined,
      timing: { ...TIMING, askCompleteTimeoutMs: 60_000 },
      emit: (e) => {
        if (e.event.t === "request" && !api.calls.length) requestsBeforeCancel++;
        if (e.event.t === "tool_call" && !outcome) {
          outcome = conn.act(e.taskId, { event: 0, detector: "tool-failure", action: "block", message: "Loop Sentinel refused this call: the mode forbids it.", evidence: { events: [], count: 4 }, key: "k", summary: "s", toolCallId: e.event.id });
        }
      },
    });
    await api.play();
    assert.ok(outcome, "a tool call was seen");
    const done = await outcome;
    conn.dispose();
    assert.match(done.done, /never reached its approval; cancelled the running request/);
    assert.equal(api.calls[0]?.method, "cancelCurrentTask");
    // The call was seen in the first request's answer; the cancel came as the second request began.
    assert.ok(requestsBeforeCancel <= 2, `${requestsBeforeCancel} requests began before the cancel`);
  });

  it("a productive task gets nothing: no message, no cancel", async () => {
    for (const name of ["run1-architect.productive", "run2-code.productive", "run3-code.productive6"]) {
      const { api, outcomes } = await runLive(name);
      assert.deepEqual(outcomes, [], name);
      assert.deepEqual(api.calls, [], name);
    }
  });

  it("every action on the recorded loops ends reported as delivered or as not delivered, never as merely sent", async () => {
    for (const name of ["run2-code.tool", "run3-code.tool", "run3-code.tool-slow", "run1-architect.tool"]) {
      const { outcomes } = await runLive(name);
      assert.ok(outcomes.length > 0, name);
      for (const o of outcomes) {
        const final = o.final ?? o.first;
        assert.ok(/delivered|not delivered|did not|no longer|stronger action|waits at/.test(final.done) && !/waiting for/.test(final.done), `${name} ${o.action}: ${final.done}`);
      }
    }
  });
});
