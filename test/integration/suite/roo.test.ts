/**
 * Roo Code as a host, in a real extension host: the test-only fake Roo extension (Roo's API shape,
 * found by shape, not by id) replays recorded message streams; Loop Sentinel must cancel a looping
 * stream within 200 ms of the looping chunk, wait for Roo's resume question and answer it with
 * guidance, refuse a repeated command that waits for approval, and leave productive work alone.
 */
import * as assert from "node:assert";
import * as fs from "node:fs";
import * as vscode from "vscode";
import { fixture, loopSentinel, sleep, waitFor } from "./helpers";

const FAKE_ROO_ID = "loop-sentinel-test.fake-roo";
const ACTION_METHODS = new Set(["cancelCurrentTask", "sendMessage", "pressPrimaryButton", "pressSecondaryButton", "resumeTask", "startNewTask", "clearCurrentTask"]);

interface Call { method: string; args: unknown[]; at: number }
interface Emitted { name: string; at: number; summary: { ts?: number; type?: string; ask?: string; say?: string; partial?: boolean; text?: string } | string }
interface FakeRoo {
  __test: {
    calls: Call[];
    emitted: Emitted[];
    replay(file: string, options?: { delayMs?: number; taskId?: string }): Promise<{ aborted: boolean }>;
    reset(): void;
  };
}

function actions(fake: FakeRoo): Call[] {
  return fake.__test.calls.filter((c) => ACTION_METHODS.has(c.method));
}

function message(e: Emitted): { ask?: string; say?: string; type?: string; partial?: boolean; text?: string } {
  return typeof e.summary === "object" && e.summary ? e.summary : {};
}

suite("Roo Code host (fake Roo extension)", function () {
  this.timeout(90_000);
  let fake: FakeRoo;

  suiteSetup(async function () {
    const ext = vscode.extensions.getExtension<FakeRoo>(FAKE_ROO_ID);
    if (!ext) { this.skip(); return; }
    fake = ext.isActive ? ext.exports : await ext.activate();
    const api = await loopSentinel();
    await waitFor("Loop Sentinel to watch the fake Roo by its API shape",
      () => api.overall().kind !== "disabled" && "hosts" in api.overall() && (api.overall() as { hosts: Array<{ hostId: string; state: string }> }).hosts.some((h) => h.hostId === "roo-compatible" && h.state === "watching"), 20_000);
  });

  setup(() => fake?.__test.reset());
  teardown(() => fake?.__test.reset());

  test("the fake Roo is found by the shape of its exports; the real Roo Code's absence is explained", async () => {
    const overall = (await loopSentinel()).overall() as { hosts: Array<{ hostId: string; state: string; detail: string }> };
    const compatible = overall.hosts.find((h) => h.hostId === "roo-compatible");
    assert.ok(compatible && /Fake Roo/.test(compatible.detail), compatible?.detail);
    const roo = overall.hosts.find((h) => h.hostId === "roo-code");
    assert.ok(roo && roo.state === "not-found" && /Roo Code is not installed/.test(roo.detail), roo?.detail);
  });

  test("a productive stream gets no action", async () => {
    const api = await loopSentinel();
    const taskId = `productive-${Date.now()}`;
    await fake.__test.replay(fixture("roo/productive.json"), { delayMs: 5, taskId });
    await sleep(1000);
    assert.deepStrictEqual(actions(fake), []);
    const snap = api.snapshots().find((s) => s.taskId === taskId);
    assert.ok(snap, "the task is watched as a session");
    assert.ok(snap.stats.toolCalls >= 7, `tool calls seen: ${snap.stats.toolCalls}`);
    assert.deepStrictEqual(snap.interventions, []);
  });

  for (const name of ["real-run2-code.productive", "real-run3-code.productive6"]) {
    test(`recorded from the real Roo (${name}): reads whose first partial ask names the workspace get no action`, async () => {
      const api = await loopSentinel();
      const taskId = `${name}-${Date.now()}`;
      // At Roo's own spacing: the usage update and the complete ask race as they did live.
      const recorded = JSON.parse(fs.readFileSync(fixture(`roo/${name}.json`), "utf8")) as { events: Array<{ name: string; args: Array<{ message?: { type?: string; ask?: string; partial?: boolean } }> }> };
      // The recording is cut where the old version first acted, after the third read's usage update and
      // before its complete ask: a call is counted from its complete ask, never from the placeholder.
      const partialAsks = new Set<unknown>(), completeAsks = new Set<unknown>();
      for (const e of recorded.events) {
        const m = e.name === "message" ? e.args[0].message as { ts?: number; type?: string; ask?: string; partial?: boolean } : undefined;
        if (m?.type === "ask" && m.ask === "tool") (m.partial ? partialAsks : completeAsks).add(m.ts);
      }
      assert.ok(partialAsks.size > completeAsks.size, "the recording ends inside a read whose path has not streamed in yet");
      await fake.__test.replay(fixture(`roo/${name}.json`), { taskId });
      await sleep(1000);
      assert.deepStrictEqual(actions(fake), []);
      const snap = api.snapshots().find((s) => s.taskId === taskId);
      assert.ok(snap && snap.stats.toolCalls === completeAsks.size, `tool calls seen: ${snap?.stats.toolCalls}, complete asks: ${completeAsks.size}`);
      assert.deepStrictEqual(snap.interventions, []);
    });
  }

  test("recorded from the real Roo in Architect mode: calls Roo refuses without a word count as failures, and Loop Sentinel acts by the 4th request", async () => {
    const api = await loopSentinel();
    const taskId = `real-architect-${Date.now()}`;
    const replay = fake.__test.replay(fixture("roo/real-run1-architect.tool.json"), { delayMs: 5, taskId });
    const snap = await waitFor("an intervention", () => api.snapshots().find((s) => s.taskId === taskId && s.interventions.length > 0), 60_000);
    await replay;
    const first = snap.interventions[0];
    assert.strictEqual(first.detector, "tool-failure");
    const requestsBefore = snap.timeline.filter((t) => t.kind === "request" && t.index <= first.event).length;
    assert.ok(requestsBefore <= 4, `first intervention after ${requestsBefore} requests`);
    await waitFor("an action on the task", () => actions(fake).length > 0, 10_000);
  });

  test("a reasoning loop: cancel → resume ask → guidance, the cancel within 200 ms of the looping chunk", async () => {
    const api = await loopSentinel();
    const taskId = `reasoning-loop-${Date.now()}`;
    // 250 ms between chunks: a cancel that comes less than 200 ms after the last chunk before it was
    // caused by that chunk, so the measured delay is the real reaction time.
    const replay = fake.__test.replay(fixture("roo/reasoning-loop.json"), { delayMs: 250, taskId });
    await waitFor("guidance sent after the cancel", () => actions(fake).some((c) => c.method === "sendMessage"), 60_000).catch((err: Error) => {
      const snap = api.snapshots().find((s) => s.taskId === taskId);
      throw new Error(`${err.message}; calls: ${JSON.stringify(actions(fake).map((c) => c.method))}; interventions: ${JSON.stringify(snap?.interventions.map((i) => [i.action, i.outcome]))}`);
    });
    assert.strictEqual((await replay).aborted, true, "the looping stream was cut");

    const calls = actions(fake);
    assert.deepStrictEqual(calls.map((c) => c.method), ["cancelCurrentTask", "sendMessage"]);
    const [cancel, guidance] = calls;
    const emitted = fake.__test.emitted;
    const loopingChunk = [...emitted].reverse().find((e) => e.at <= cancel.at && message(e).say === "reasoning");
    assert.ok(loopingChunk, "a reasoning chunk before the cancel");
    const reaction = cancel.at - loopingChunk.at;
    console.log(`roo: looping chunk → cancelCurrentTask in ${reaction} ms`);
    assert.ok(reaction < 200, `cancel came ${reaction} ms after the looping chunk`);
    const resumeAsk = emitted.find((e) => e.at >= cancel.at && message(e).ask === "resume_task");
    assert.ok(resumeAsk, "Roo asked to resume");
    assert.ok(resumeAsk.at <= guidance.at, "guidance only after the resume ask");

    const snap = await waitFor("the intervention recorded", () => api.snapshots().find((s) => s.taskId === taskId && s.interventions.length > 0));
    assert.strictEqual(snap.interventions[0].action, "abort");
    assert.strictEqual(guidance.args[0], snap.interventions[0].message, "the guidance is the intervention's message");
    await waitFor("Roo to show the guidance as user feedback", () => fake.__test.emitted.some((e) => message(e).say === "user_feedback"));
    await sleep(500);
    const after = api.snapshots().find((s) => s.taskId === taskId)!;
    assert.ok(!after.timeline.some((t) => t.kind === "user" && (t.ts ?? 0) >= guidance.at), "our own guidance did not count as a user message");
  });

  test("a repeated command waiting for approval is refused with guidance, not cancelled", async () => {
    const api = await loopSentinel();
    const taskId = `command-loop-${Date.now()}`;
    await fake.__test.replay(fixture("roo/tool-loop-approval.json"), { delayMs: 5, taskId });
    await sleep(500);
    const snap = api.snapshots().find((s) => s.taskId === taskId);
    assert.ok(snap, "the task is watched");
    // A block of the call or an abort of the (already finished) response: either way Roo waits for
    // approval, and the adapter answers it with the guidance.
    const block = snap.interventions.find((i) => i.action === "block" || i.action === "abort");
    assert.ok(block, `interventions: ${snap.interventions.map((i) => i.action).join(", ")}`);
    const refusal = actions(fake).find((c) => c.method === "sendMessage" && c.args[0] === block.message);
    assert.ok(refusal, "the block's guidance was sent");
    // The recorded stream plays on whatever the refusal said, so a later stop may cancel; nothing before it.
    assert.ok(!actions(fake).some((c) => c.method === "cancelCurrentTask" && c.at <= refusal.at), "a waiting approval is answered, not cancelled");
    // Roo took it as the answer to the pending command: the refused command produced no output.
    const i = fake.__test.emitted.findIndex((e) => e.at >= refusal.at && message(e).say === "user_feedback" && message(e).text === block.message);
    assert.ok(i >= 0, "Roo showed the refusal as feedback");
    const next = fake.__test.emitted.slice(i + 1);
    const nextRequest = next.findIndex((e) => message(e).say === "api_req_started");
    assert.ok(!next.slice(0, nextRequest === -1 ? undefined : nextRequest).some((e) => message(e).say === "command_output"));
  });
});
