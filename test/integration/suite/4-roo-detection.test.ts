/**
 * Live detection through the test-only fake Roo extension (test/integration/fake-roo), installed
 * from its own VSIX: it exports Roo Code's API shape and replays recorded Roo message streams.
 */
import * as assert from "node:assert";
import * as vscode from "vscode";
import { closeAllEditors, fixture, loopSentinel, nextRender, screenshot, setSetting, sleep, waitFor } from "./helpers";
import type { LoopSentinelApi } from "../../../src/extension/extension";
import type { SessionSnapshot } from "../../../src/extension/sessionManager";

interface FakeRoo {
  __test: {
    replay(file: string, options?: { delayMs?: number; taskId?: string }): Promise<{ aborted: boolean }>;
    calls: Array<{ method: string; args: unknown[]; at: number }>;
    reset(): void;
  };
}

const FAKE_ROO_ID = "loop-sentinel-test.fake-roo";
const TASK_ACTIONS = new Set(["cancelCurrentTask", "sendMessage", "pressSecondaryButton", "pressPrimaryButton", "clearCurrentTask"]);

function actionsOn(fake: FakeRoo): Array<{ method: string; args: unknown[] }> {
  return fake.__test.calls.filter((c) => TASK_ACTIONS.has(c.method));
}

function liveSession(api: LoopSentinelApi, taskId: string): SessionSnapshot | undefined {
  return api.snapshots().find((s) => !s.replay && s.taskId === taskId);
}

suite("live detection through a Roo-shaped host", function () {
  let fake: FakeRoo;
  let api: LoopSentinelApi;

  suiteSetup(async function () {
    const ext = vscode.extensions.getExtension<FakeRoo>(FAKE_ROO_ID);
    if (!ext) { this.skip(); return; }
    fake = ext.isActive ? ext.exports : await ext.activate();
    api = await loopSentinel();
    // Found by the shape of its exports, not by its id.
    await waitFor("the Roo adapter to connect to the fake Roo", () => api.overall().kind === "watching" && "hosts" in api.overall());
  });

  setup(async () => {
    fake.__test.reset();
    await vscode.commands.executeCommand("loopSentinel.resetDetectors");
  });

  suiteTeardown(async () => {
    if (!fake) return;
    fake.__test.reset();
    await setSetting("mode", undefined);
    await setSetting("actionPolicy", undefined);
    await closeAllEditors();
  });

  test("a productive Roo session is watched and left alone", async () => {
    const taskId = "itest-productive";
    const result = await fake.__test.replay(fixture("roo/productive.json"), { taskId, delayMs: 2 });
    assert.strictEqual(result.aborted, false);
    const snap = await waitFor("the productive session", () => liveSession(api, taskId));
    await sleep(200);
    assert.ok(snap.stats.toolCalls > 0, "its tool calls reached the engine");
    assert.deepStrictEqual(liveSession(api, taskId)!.interventions, []);
    assert.deepStrictEqual(actionsOn(fake), [], "nothing was sent to the task");
    const bar = api.statusBar();
    assert.strictEqual(bar.state, "watching");
    assert.match(bar.label, /^Watching .+ \(\d+ tasks?\)$/);
    assert.strictEqual(bar.background, undefined);
  });

  test("warn-only: a tool loop turns the status bar to warning and touches nothing", async () => {
    await setSetting("mode", "warnOnly");
    try {
      const taskId = "itest-warn-only";
      await fake.__test.replay(fixture("roo/tool-loop-auto.json"), { taskId, delayMs: 2 });
      await waitFor("the warning state", () => api.statusBar().state === "warning");
      const bar = api.statusBar();
      assert.strictEqual(bar.background, "statusBarItem.warningBackground");
      assert.strictEqual(bar.label, "Loop detected: warn-only, nothing sent");
      const snap = liveSession(api, taskId)!;
      assert.ok(snap.interventions.length > 0);
      assert.match(bar.tooltip, new RegExp(snap.interventions.at(-1)!.detectorTitle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), "tooltip names the latest detection");
      assert.deepStrictEqual(actionsOn(fake), [], "warn-only never touches the task");
      await screenshot("status-bar-warning.png");
    } finally {
      await setSetting("mode", undefined);
    }
  });

  test("intervene: an auto-approved tool loop is stopped through Roo's API; status bar and panel show it", async () => {
    const taskId = "itest-tool-loop";
    const replay = fake.__test.replay(fixture("roo/tool-loop-auto.json"), { taskId });
    await waitFor("an intervention on the task", () => api.statusBar().state === "intervened", 30_000);
    await replay;
    await waitFor("the host's answer", () => api.statusBar().phase === "done" || api.statusBar().phase === "failed", 15_000);
    const bar = api.statusBar();
    assert.strictEqual(bar.background, "statusBarItem.errorBackground");
    assert.match(bar.label, /^Loop detected: (stopped the task|aborted a response|refused a call)$/);
    await waitFor("Roo's API to be called", () => actionsOn(fake).length > 0);
    const snap = await waitFor("an outcome", () => { const s = liveSession(api, taskId); return s?.interventions.some((i) => i.ok === true) ? s : undefined; }, 15_000);
    assert.ok(snap.interventions.some((i) => i.action !== "warn"), snap.interventions.map((i) => i.action).join(","));
    // Every text sent to Roo is guidance from one of the interventions.
    const sent = actionsOn(fake).filter((c) => c.method === "sendMessage").map((c) => c.args[0]);
    for (const text of sent) assert.ok(snap.interventions.some((i) => i.message === text), `unexpected text sent: ${String(text)}`);

    await closeAllEditors();
    const rendered = nextRender(api, (r) => r.selected === snap.key && r.timelineEntries > 0 && r.interventions > 0);
    await vscode.commands.executeCommand("loopSentinel.showDiagnostics", snap.key);
    const report = await rendered;
    assert.ok(report.flaggedEntries > 0, "the loop is highlighted in the live timeline");
    if (snap.interventions.some((i) => i.evidence.span)) assert.ok(report.highlightedSpans > 0, "the repeated text is highlighted");
    await vscode.commands.executeCommand("workbench.action.closeSidebar");
    await sleep(400);
    await screenshot("panel-live.png");
    await screenshot("status-bar-tooltip.png", "Loop detected");
    await vscode.commands.executeCommand("workbench.action.toggleSidebarVisibility");
  });

  test("a reasoning loop is aborted, guidance follows, and its echo does not count as the user", async () => {
    const taskId = "itest-reasoning-loop";
    void fake.__test.replay(fixture("roo/reasoning-loop.json"), { taskId });
    const snap = await waitFor("an abort", () => { const s = liveSession(api, taskId); return s?.interventions.some((i) => i.action === "abort" || i.action === "stop") ? s : undefined; }, 30_000);
    const iv = snap.interventions.find((i) => i.action === "abort" || i.action === "stop")!;
    await waitFor("cancel then guidance", () => {
      const calls = actionsOn(fake).map((c) => c.method);
      return calls.includes("cancelCurrentTask") && calls.indexOf("sendMessage") > calls.indexOf("cancelCurrentTask");
    }, 15_000);
    const guidance = actionsOn(fake).find((c) => c.method === "sendMessage")!.args[0];
    assert.strictEqual(guidance, iv.message);
    await sleep(1000); // Roo echoes the guidance as user feedback shortly after
    const users = liveSession(api, taskId)!.timeline.filter((e) => e.kind === "user");
    assert.ok(!users.some((u) => u.label === String(guidance).replace(/\s+/g, " ").trim().slice(0, 160)), "the echo was not taken for a user message");
  });

  test("ask first: nothing reaches the task while your answer is pending", async () => {
    const taskId = "itest-ask";
    await setSetting("actionPolicy", "ask");
    try {
      await fake.__test.replay(fixture("roo/tool-loop-auto.json"), { taskId, delayMs: 2 });
      const snap = await waitFor("a detection", () => { const s = liveSession(api, taskId); return s && s.interventions.length > 0 ? s : undefined; });
      await sleep(500);
      assert.ok(liveSession(api, taskId)!.interventions.every((i) => i.phase === "asking" || i.phase === "superseded"), snap.interventions.map((i) => i.phase).join(" | "));
      assert.deepStrictEqual(actionsOn(fake), [], "no action without your OK");
      // Dismissing the question (its task's one notification, always the latest rung) sends nothing either.
      await waitFor("the questions closed as dismissed", () => {
        void vscode.commands.executeCommand("loopSentinel.closeNotification", liveSession(api, taskId)!.key);
        return liveSession(api, taskId)!.interventions.every((i) => i.phase === "dismissed" || i.phase === "superseded");
      }, 15_000);
      assert.deepStrictEqual(actionsOn(fake), []);
    } finally {
      await setSetting("actionPolicy", undefined);
    }
  });

  test("Resume with guidance (panel button) sends your text to the task through Roo's API", async () => {
    const taskId = "itest-resume";
    const replay = fake.__test.replay(fixture("roo/tool-loop-auto.json"), { taskId });
    await waitFor("an intervention", () => api.statusBar().state === "intervened", 30_000);
    await replay;
    const key = liveSession(api, taskId)!.key;
    const text = "Stop reading src/routes/health.ts; edit it to return the version from package.json.";
    const outcome = await vscode.commands.executeCommand<{ ok: boolean; done: string }>("loopSentinel.resumeWithGuidance", key, text);
    assert.ok(outcome.ok, outcome.done);
    assert.ok(fake.__test.calls.some((c) => c.method === "sendMessage" && c.args[0] === text), "Roo received the text");
    assert.strictEqual(liveSession(api, taskId)!.alert, "none");
  });

  test("Ignore this pattern (panel button) marks the pattern ignored and clears the alert", async () => {
    const taskId = "itest-ignore";
    await setSetting("mode", "warnOnly");
    try {
      await fake.__test.replay(fixture("roo/tool-loop-auto.json"), { taskId, delayMs: 2 });
      await waitFor("an alert", () => api.statusBar().state === "warning");
      const snap = liveSession(api, taskId)!;
      for (const pattern of new Set(snap.interventions.map((i) => i.key))) {
        assert.strictEqual(await vscode.commands.executeCommand("loopSentinel.ignorePattern", snap.key, pattern), true);
      }
      const after = liveSession(api, taskId)!;
      assert.ok(after.interventions.every((i) => i.ignored));
      assert.strictEqual(after.alert, "none");
      assert.strictEqual(api.statusBar().state, "watching");
    } finally {
      await setSetting("mode", undefined);
    }
  });

  test("Reset Detectors clears the alert", async () => {
    const taskId = "itest-reset";
    await setSetting("mode", "warnOnly");
    try {
      await fake.__test.replay(fixture("roo/tool-loop-auto.json"), { taskId, delayMs: 2 });
      await waitFor("an alert", () => api.statusBar().state === "warning");
      await vscode.commands.executeCommand("loopSentinel.resetDetectors");
      assert.strictEqual(api.statusBar().state, "watching");
      assert.strictEqual(liveSession(api, taskId)!.alert, "none");
    } finally {
      await setSetting("mode", undefined);
    }
  });
});
