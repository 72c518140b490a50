/**
 * The whole Roo path in plain Node: the fake Roo API replays a recorded stream, the adapter
 * translates it, one engine session per task decides, and the adapter acts on the fake.
 */
import * as assert from "node:assert/strict";
import { LoopSession, type Intervention } from "../../src/engine/session";
import { createRooHostAdapters, type ExtensionLike, type RooHostAdapter } from "../../src/hosts/roo/adapter";
import { actionCalls, fakeRoo, loadStream, waitUntil, type FakeRoo } from "./rooTestKit";

async function pipeline(api: FakeRoo) {
  const ext: ExtensionLike = { id: "RooVeterinaryInc.roo-cline", isActive: true, exports: api, packageJSON: { displayName: "Roo Code", version: "3.52.1" }, activate: () => Promise.resolve(api) };
  const [roo] = createRooHostAdapters({ extensions: { all: [ext], onDidChange: () => ({ dispose() {} }) }, log: () => undefined, timing: { settleMs: 10 } }) as RooHostAdapter[];
  const sessions = new Map<string, LoopSession>();
  const interventions: Array<{ iv: Intervention; at: number }> = [];
  const outcomes: string[] = [];
  let chain = Promise.resolve();
  roo.onEvent((e) => {
    let s = sessions.get(e.taskId);
    if (!s) { s = new LoopSession(); sessions.set(e.taskId, s); }
    for (const iv of s.push(e.event)) {
      interventions.push({ iv, at: Date.now() });
      chain = chain.then(async () => { outcomes.push((await roo.act(e.taskId, iv)).done); });
    }
  });
  await roo.start();
  return { roo, sessions, interventions, outcomes, settle: () => chain };
}

describe("Roo end to end (fake Roo, real engine)", () => {
  let api: FakeRoo;
  beforeEach(() => { api = fakeRoo(); });
  afterEach(() => api.__test.reset());

  it("productive stream: no intervention, no call that touches the task", async () => {
    const p = await pipeline(api);
    await api.__test.replay(loadStream("productive"), { delayMs: 0 });
    await p.settle();
    assert.deepEqual(p.interventions.map((x) => `${x.iv.detector}:${x.iv.action}`), []);
    assert.deepEqual(actionCalls(api), []);
    assert.equal(p.sessions.size, 1);
    p.roo.dispose();
  });

  it("reasoning loop: aborted within a few repetitions; cancel → resume ask → guidance, cancel right after the chunk", async () => {
    const p = await pipeline(api);
    const replay = api.__test.replay(loadStream("reasoning-loop"), { delayMs: 2 });
    await waitUntil(() => actionCalls(api).some((c) => c.method === "sendMessage"));
    await replay;
    await p.settle();
    const [cancel, send] = actionCalls(api);
    assert.deepEqual(actionCalls(api).map((c) => c.method), ["cancelCurrentTask", "sendMessage"]);
    assert.equal(p.interventions[0].iv.action, "abort");
    assert.equal(send.args[0], p.interventions[0].iv.message);
    const emitted = api.__test.emitted;
    const lastChunkBeforeCancel = [...emitted].reverse().find((e) => e.at <= cancel.at && (e.summary as { say?: string }).say === "reasoning");
    assert.ok(lastChunkBeforeCancel && cancel.at - lastChunkBeforeCancel.at < 200);
    const resumeAsk = emitted.find((e) => (e.summary as { ask?: string }).ask === "resume_task")!;
    assert.ok(cancel.at <= resumeAsk.at && resumeAsk.at <= send.at);
    // The stream was cut while looping: far fewer chunks than recorded went out.
    const chunks = emitted.filter((e) => (e.summary as { say?: string }).say === "reasoning").length;
    const recorded = loadStream("reasoning-loop").events.filter((e) => e.name === "message").length;
    assert.ok(chunks < recorded - 20, `${chunks} of ${recorded} chunks`);
    p.roo.dispose();
  });

  it("auto-approved read loop: stopped long before the recorded ten reads all run, then guided", async () => {
    const p = await pipeline(api);
    const replay = api.__test.replay(loadStream("tool-loop-auto"), { delayMs: 1 });
    await waitUntil(() => actionCalls(api).some((c) => c.method === "cancelCurrentTask"), 8000);
    await replay;
    await waitUntil(() => actionCalls(api).filter((c) => c.method === "sendMessage").length >= 2);
    await p.settle();
    const methods = actionCalls(api).map((c) => c.method);
    // A warning may go first (queued by Roo for the next step); the loop is then cut and guided.
    const cancelAt = methods.indexOf("cancelCurrentTask");
    assert.equal(methods[cancelAt + 1], "sendMessage", methods.join(","));
    assert.ok(methods.slice(0, cancelAt).every((m) => m === "sendMessage"));
    const approvedReads = new Set(api.__test.emitted
      .filter((e) => e.name === "message" && (e.summary as { ask?: string; partial?: boolean }).ask === "tool" && (e.summary as { partial?: boolean }).partial === false)
      .map((e) => (e.summary as { ts: number }).ts));
    assert.ok(approvedReads.size >= 3 && approvedReads.size < 8, `${approvedReads.size} reads ran`);
    p.roo.dispose();
  });

  it("repeated command waiting for approval: refused with guidance, not cancelled", async () => {
    const p = await pipeline(api);
    await api.__test.replay(loadStream("tool-loop-approval"), { delayMs: 0 });
    await p.settle();
    // Whether the engine blocks the call or aborts the response, the response is over and Roo waits
    // for approval: the adapter answers that approval with the guidance instead of cancelling.
    const described = `${p.interventions.map((x) => `${x.iv.detector}:${x.iv.action}`).join(", ")} → ${p.outcomes.join(" | ")}`;
    const acted = p.interventions.findIndex((x) => x.iv.action === "block" || x.iv.action === "abort");
    assert.ok(acted >= 0, described);
    assert.match(p.outcomes[acted], /^refused the pending execute_command call/, described);
    // The recorded stream plays on whatever the refusal said; only a later stop may cancel.
    const firstStop = p.interventions.findIndex((x) => x.iv.action === "stop");
    const cancels = actionCalls(api).filter((c) => c.method === "cancelCurrentTask").length;
    assert.equal(cancels, firstStop >= 0 ? 1 : 0, described);
  });
});
