/**
 * Each action sequence against an object with Roo's semantics (the fake Roo API that the real-host
 * test extension also uses): what is called, in which order, and what Roo shows afterwards.
 */
import * as assert from "node:assert/strict";
import type { Intervention } from "../../src/engine/session";
import type { HostSessionEvent } from "../../src/hosts/hostAdapter";
import { RooConnection } from "../../src/hosts/roo/connection";
import { snapshotMessageEvent } from "../../src/hosts/roo/messages";
import type { RooApiLike } from "../../src/hosts/roo/api";
import { actionCalls, fakeRoo, loadStream, waitUntil, type FakeRoo } from "./rooTestKit";

const TIMING = { resumeAskTimeoutMs: 500, settleMs: 10, askCompleteTimeoutMs: 500, confirmMs: 300 };

function intervention(action: Intervention["action"], message: string, toolCallId?: string): Intervention {
  return { event: 0, detector: action === "abort" ? "line-repeat" : "tool-repeat", action, message, evidence: { events: [], count: 3 }, key: "k", summary: "s", toolCallId };
}

function connect(api: FakeRoo) {
  const events: HostSessionEvent[] = [];
  const logs: string[] = [];
  const conn = new RooConnection({ hostId: "roo-code", label: "Roo Code", api: api as unknown as RooApiLike, emit: (e) => events.push(e), log: (l) => logs.push(l), timing: TIMING });
  return { conn, events, logs };
}

function emittedNames(api: FakeRoo, from = 0): string[] {
  return api.__test.emitted.slice(from).map((e) => {
    const s = e.summary as { type?: string; ask?: string; say?: string };
    return e.name === "message" ? `${s.type}:${s.ask ?? s.say}` : e.name;
  });
}

describe("Roo actions against Roo's semantics", () => {
  let api: FakeRoo;
  beforeEach(() => { api = fakeRoo(); });
  afterEach(() => api.__test.reset());

  it("abort: cancel, wait for the resume_task ask, then send the guidance; the echo is not a user message", async () => {
    const { conn, events } = connect(api);
    const f = loadStream("reasoning-loop");
    const replay = api.__test.replay(f, { delayMs: 1 });
    await waitUntil(() => events.filter((e) => e.event.t === "reasoning").length >= 20);
    const outcome = await conn.act(f.taskId, intervention("abort", "Loop Sentinel stopped your last response: stop repeating."));
    assert.equal((await replay).aborted, true);
    assert.ok(outcome.ok, outcome.done);
    assert.deepEqual(actionCalls(api).map((c) => c.method), ["cancelCurrentTask", "sendMessage"]);
    const [cancel, send] = actionCalls(api);
    assert.equal(send.args[0], "Loop Sentinel stopped your last response: stop repeating.");
    const resumeAsk = api.__test.emitted.find((e) => (e.summary as { ask?: string }).ask === "resume_task");
    assert.ok(resumeAsk && cancel.at <= resumeAsk.at && resumeAsk.at <= send.at, "cancel → resume ask → guidance");
    await waitUntil(() => emittedNames(api).includes("say:user_feedback"));
    await waitUntil(() => events.some((e) => e.event.t === "request" && e.event.ts! >= send.at));
    assert.ok(!events.some((e) => e.event.t === "user" && e.event.text.startsWith("Loop Sentinel")), "own guidance is not a user event");
    conn.dispose();
  });

  it("stop: cancel and leave the task at the resume prompt; 'resume with guidance' then answers it", async () => {
    const { conn } = connect(api);
    const f = loadStream("reasoning-loop");
    void api.__test.replay(f, { delayMs: 1 });
    await waitUntil(() => api.__test.emitted.length > 30);
    const stopped = await conn.act(f.taskId, intervention("stop", "Loop Sentinel stopped the task"));
    assert.ok(stopped.ok, stopped.done);
    assert.deepEqual(actionCalls(api).map((c) => c.method), ["cancelCurrentTask"]);
    assert.equal(api.__test.state().waiting, "resume");
    const resumed = await conn.act(f.taskId, intervention("warn", "Use the test output you already have."));
    assert.ok(resumed.ok, resumed.done);
    assert.deepEqual(actionCalls(api).map((c) => c.method), ["cancelCurrentTask", "sendMessage"]);
    assert.equal(api.__test.state().waiting, undefined);
    conn.dispose();
  });

  it("block with an approval ask waiting: the guidance answers it (Roo denies the call), nothing is cancelled", async () => {
    const { conn, events } = connect(api);
    const f = loadStream("tool-loop-approval");
    void api.__test.replay(f, { delayMs: 1 });
    // Approvals in this stream come from the simulated user after 600 ms; act on the first waiting one.
    await waitUntil(() => api.__test.state().waiting === "approval");
    const call = events.filter((e) => e.event.t === "tool_call").pop()!;
    assert.equal(call.event.t === "tool_call" && call.event.name, "execute_command");
    const outcome = await conn.act(f.taskId, intervention("block", "Loop Sentinel refused this call: same failing command.", call.event.t === "tool_call" ? call.event.id : undefined));
    assert.ok(outcome.ok, outcome.done);
    assert.match(outcome.done, /refused the pending execute_command call/);
    assert.deepEqual(actionCalls(api).map((c) => c.method), ["sendMessage"]);
    // The refused command never ran: no output for it before the next request.
    const after = emittedNames(api, api.__test.emitted.findIndex((e) => e.at >= actionCalls(api)[0].at));
    const nextRequest = after.indexOf("say:api_req_started");
    assert.ok(!after.slice(0, nextRequest === -1 ? undefined : nextRequest).includes("say:command_output"));
    conn.dispose();
  });

  it("block under auto-approval: Roo completes the ask only once it approved it, so the running request is cancelled, then guided", async () => {
    // Real Roo 3.52 (shared/hosts/roo-real) shows a partial ask with placeholder arguments and
    // completes it after auto-approving it: the call is known only once it runs.
    const { conn, events } = connect(api);
    const f = loadStream("tool-loop-auto");
    let acted: Promise<{ ok: boolean; done: string }> | undefined;
    let callsSeen = 0;
    conn.dispose();
    const live = new RooConnection({
      hostId: "roo-code", label: "Roo Code", api: api as unknown as RooApiLike, log: () => undefined, timing: TIMING,
      emit: (e) => {
        events.push(e);
        if (e.event.t === "tool_call" && ++callsSeen === 2 && !acted) acted = live.act(f.taskId, intervention("block", "Loop Sentinel refused this call: read again.", e.event.id));
      },
    });
    void api.__test.replay(f, { delayMs: 1 });
    await waitUntil(() => acted !== undefined);
    const outcome = await acted!;
    assert.ok(outcome.ok, outcome.done);
    assert.match(outcome.done, /auto-approved and ran; cancelled the running request/);
    assert.deepEqual(actionCalls(api).map((c) => c.method), ["cancelCurrentTask", "sendMessage"]);
    live.dispose();
  });

  it("warn while an approval waits: held until the user answers, then sent (Roo queues it for the next step)", async () => {
    const { conn } = connect(api);
    const f = loadStream("tool-loop-approval");
    void api.__test.replay(f, { delayMs: 1 });
    await waitUntil(() => api.__test.state().waiting === "approval");
    const outcome = await conn.act(f.taskId, intervention("warn", "Loop Sentinel: same command again."));
    assert.ok(outcome.ok);
    assert.match(outcome.done, /held until Roo Code.s pending approval is answered/);
    assert.deepEqual(actionCalls(api), [], "nothing sent while the user decides");
    await api.pressPrimaryButton(); // the user approves
    await waitUntil(() => actionCalls(api).some((c) => c.method === "sendMessage"));
    assert.equal(actionCalls(api).find((c) => c.method === "sendMessage")!.args[0], "Loop Sentinel: same command again.");
    assert.equal(api.__test.state().queued, 1, "Roo queues it while busy");
    conn.dispose();
  });

  it("warn while streaming: sent at once and queued by Roo; nothing cancelled", async () => {
    const { conn } = connect(api);
    const f = loadStream("productive");
    void api.__test.replay(f, { delayMs: 1 });
    await waitUntil(() => api.__test.emitted.length > 15 && api.__test.state().waiting === undefined);
    const outcome = await conn.act(f.taskId, intervention("warn", "Loop Sentinel: hint."));
    assert.ok(outcome.ok, outcome.done);
    assert.deepEqual(actionCalls(api).map((c) => c.method), ["sendMessage"]);
    conn.dispose();
  });

  it("warn with Roo's chat view closed: not sent (Roo would drop it while busy)", async () => {
    const { conn } = connect(api);
    const f = loadStream("productive");
    void api.__test.replay(f, { delayMs: 1 });
    await waitUntil(() => api.__test.emitted.length > 15 && api.__test.state().waiting === undefined);
    (api as unknown as { isReady: () => boolean }).isReady = () => false;
    const outcome = await conn.act(f.taskId, intervention("warn", "Loop Sentinel: hint."));
    assert.equal(outcome.ok, false);
    assert.match(outcome.done, /chat view is not open/);
    assert.deepEqual(actionCalls(api), []);
    conn.dispose();
  });

  it("a task that is not Roo's current one is never touched", async () => {
    const { conn } = connect(api);
    const f = loadStream("reasoning-loop");
    void api.__test.replay(f, { delayMs: 1 });
    await waitUntil(() => api.__test.emitted.length > 10);
    const outcome = await conn.act("some-other-task", intervention("abort", "x"));
    assert.equal(outcome.ok, false);
    assert.match(outcome.done, /current task/);
    assert.deepEqual(actionCalls(api), []);
    conn.dispose();
  });

  it("act never throws: a host whose cancel fails gives a failed outcome", async () => {
    const { conn } = connect(api);
    const f = loadStream("reasoning-loop");
    void api.__test.replay(f, { delayMs: 1 });
    await waitUntil(() => api.__test.emitted.length > 10);
    (api as unknown as { cancelCurrentTask: () => Promise<void> }).cancelCurrentTask = () => Promise.reject(new Error("webview gone"));
    const outcome = await conn.act(f.taskId, intervention("abort", "x"));
    assert.equal(outcome.ok, false);
    assert.match(outcome.done, /webview gone/);
    conn.dispose();
  });

  it("a malformed event or a listener problem never reaches Roo's emitter", () => {
    const { conn, logs } = connect(api);
    assert.doesNotThrow(() => api.emit("message", { taskId: 5, action: "created" }));
    assert.doesNotThrow(() => api.emit("message", null));
    assert.doesNotThrow(() => api.emit("taskToolFailed", "t", 3, null));
    assert.ok(logs.length >= 1);
    conn.dispose();
    assert.equal(api.listenerCount("message"), 0, "dispose removes every listener");
  });

  it("messages are copied on receipt: Roo mutating its live object later changes nothing we hold", () => {
    const live = { ts: 10, type: "say", say: "reasoning", text: "I will read the file.", partial: true, images: ["a.png"] };
    const snap = snapshotMessageEvent({ taskId: "t1", action: "created", message: live })!;
    live.text = "COMPLETELY DIFFERENT";
    live.partial = false;
    live.images.push("b.png");
    assert.deepEqual(snap.message, { ts: 10, type: "say", say: "reasoning", text: "I will read the file.", partial: true, images: ["a.png"] });
  });

  it("an action queued behind a slow one never cancels the task that became current meanwhile", async () => {
    const { conn } = connect(api);
    const f = loadStream("reasoning-loop");
    void api.__test.replay(f, { delayMs: 1 });
    await waitUntil(() => api.__test.emitted.length > 30);
    // The user starts another task just as the first stop cancels: no resume question comes for the
    // looping task, so the first action waits its full bound while the second one queues behind it.
    const cancels: string[] = [];
    const realCancel = api.cancelCurrentTask.bind(api);
    api.cancelCurrentTask = async () => {
      cancels.push(api.getCurrentTaskStack().at(-1) ?? "none");
      if (cancels.length === 1) { await realCancel(); await api.startNewTask({ text: "another task" }); }
      else await realCancel();
    };
    (api as unknown as { isTaskInHistory: () => Promise<boolean> }).isTaskInHistory = async () => false;
    const first = conn.act(f.taskId, intervention("stop", "Loop Sentinel stopped the task"));
    const second = conn.act(f.taskId, intervention("stop", "Loop Sentinel stopped the task"));
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.ok, false, a.done);
    assert.equal(b.ok, false, b.done);
    assert.match(b.done, /current task was another one/);
    assert.deepEqual(cancels, [f.taskId], "only the looping task was ever cancelled");
    conn.dispose();
  });
});
