/**
 * The words of each state, in a real extension host: asking, done (the host confirmed), failed and
 * replay; for Roo (the fake Roo extension), Cline (task files written live; "ask" by default, then
 * "automatic" without Cline's API) and a replay. The status bar, its tooltip, the panel's card and
 * the notification must say the same thing, and a task never has two notifications open at once.
 * Also: contrast of the panel's text from its rendered colours in Dark and Light Modern, the header
 * at 1,030 px, one small live region. Screenshots of every state go to test-artifacts/.
 */
import * as assert from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { LoopSentinelApi } from "../../../src/extension/extension";
import type { InterventionRecord, SessionSnapshot } from "../../../src/extension/sessionManager";
import type { RenderReport } from "../../../src/extension/diagnosticsPanel";
import { stateWords } from "../../../src/extension/stateWords";
import { loopViews } from "../../../src/extension/panelWords";
import { clineHookOffer } from "../../../src/extension/clineHookSetup";
import { closeAllEditors, fixture, focusInWebview, loopSentinel, nextRender, screenshot, setSetting, setViewport, sleep, waitFor } from "./helpers";

interface FakeRoo { __test: { replay(file: string, options?: { delayMs?: number; taskId?: string }): Promise<{ aborted: boolean }>; reset(): void } }

const FAKE_ROO_ID = "loop-sentinel-test.fake-roo";
const CLINE_DATA = process.env.LS_TEST_CLINE_DATA;

/** The tooltip is Markdown with its punctuation escaped: compare its plain text. */
function plain(markdown: string): string {
  return markdown.replace(/\\(.)/g, "$1");
}

function session(api: LoopSentinelApi, pick: (s: SessionSnapshot) => boolean): SessionSnapshot | undefined {
  return api.snapshots().find(pick);
}

/** Waits until the task's latest intervention has left "acting" (the host answered) and returns it. */
async function settled(api: LoopSentinelApi, key: string, accept: (r: InterventionRecord) => boolean, what: string, timeoutMs = 30_000): Promise<InterventionRecord> {
  return waitFor(what, () => {
    const r = api.snapshots().find((s) => s.key === key)?.interventions.at(-1);
    return r && r.phase !== "acting" && accept(r) ? r : undefined;
  }, timeoutMs);
}

/** Opens the panel on the task and waits for a render showing the latest intervention as it is now. */
async function panelShows(api: LoopSentinelApi, key: string, r: InterventionRecord): Promise<RenderReport> {
  const words = stateWords(r.phase, r.action);
  const rendered = nextRender(api, (rep) => rep.selected === key && rep.texts?.badges[0] === words.short, 15_000);
  await vscode.commands.executeCommand("loopSentinel.showDiagnostics", key);
  return rendered;
}

/** Status bar, tooltip, panel card and (when one was shown) the notification say the same words. */
async function assertAgree(api: LoopSentinelApi, key: string, r: InterventionRecord, expectToast: boolean): Promise<RenderReport> {
  const words = stateWords(r.phase, r.action);
  const bar = api.statusBar();
  assert.strictEqual(bar.label, words.headline, "status bar");
  assert.ok(plain(bar.tooltip).includes(words.sentence), `tooltip: ${bar.tooltip}`);
  const report = await panelShows(api, key, r);
  assert.strictEqual(report.texts!.badges[0], words.short, "card badge");
  assert.strictEqual(report.texts!.sentences[0], words.sentence, "card sentence");
  assert.ok(report.contrast && report.contrast.min >= 4.5, `contrast of this state's panel: ${JSON.stringify(report.contrast?.worst.slice(0, 2))}`);
  if (expectToast) {
    // The task's newest notification: the one waiting behind the open one (it shows when that closes), else the open one.
    const n = api.notifications();
    const newest = n.waiting.find((t) => t.sessionKey === key) ?? n.open.find((t) => t.sessionKey === key);
    const shown = n.shown.filter((t) => t.sessionKey === key).map((t) => t.text);
    assert.ok(newest ? newest.text.endsWith(words.sentence) : shown.at(-1)?.endsWith(words.sentence), `the newest notification says "${words.sentence}": ${JSON.stringify({ newest, shown })}`);
  }
  // Never the past tense before the host confirmed.
  if (r.phase !== "done") for (const said of [bar.label, plain(bar.tooltip), report.texts!.badges[0], report.texts!.sentences[0]]) assert.doesNotMatch(said, /\b(stopped|aborted|refused|warned)\b/i, said);
  return report;
}

/** Samples the open notifications while `run` goes on: never two for one task. Returns the most seen at once. */
async function maxOpenPerTask(api: LoopSentinelApi, key: string, run: Promise<unknown>): Promise<number> {
  let max = 0;
  let done = false;
  void run.finally(() => { done = true; });
  while (!done) {
    max = Math.max(max, api.notifications().open.filter((t) => t.sessionKey === key).length);
    await sleep(20);
  }
  await run;
  return Math.max(max, api.notifications().open.filter((t) => t.sessionKey === key).length);
}

/** Closes the task's notification (a live one: Clear All leaves a running one in place). */
async function closeAll(api: LoopSentinelApi, key: string): Promise<void> {
  await vscode.commands.executeCommand("loopSentinel.closeNotification", key);
  await waitFor("the task's notification closed", () => !api.notifications().open.some((t) => t.sessionKey === key), 20_000);
}

/** A classic Cline task that runs `ls` again and again with the same output, written call by call. */
async function writeClineLoop(taskId: string, calls: number, onCall?: (i: number) => Promise<void>): Promise<string> {
  assert.ok(CLINE_DATA, "the runner names a Cline data folder");
  const file = path.join(CLINE_DATA, "tasks", taskId, "ui_messages.json");
  const now = Date.now();
  const messages: Record<string, unknown>[] = [{ ts: now, type: "say", say: "task", text: "List the files of this folder" }];
  for (let i = 0; i < calls; i++) {
    const request = i === 0 ? "<task>List the files of this folder</task>" : "[execute_command for 'ls -la'] Result:\nCommand executed successfully (exit code 0).\nOutput:\nREADME.md\nsrc";
    messages.push({ ts: now + i * 10 + 1, type: "say", say: "api_req_started", text: JSON.stringify({ request }) });
    messages.push({ ts: now + i * 10 + 2, type: "say", say: "command", text: "ls -la" });
    messages.push({ ts: now + i * 10 + 3, type: "ask", ask: "command_output", text: "README.md\nsrc\n" });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(messages));
    fs.renameSync(`${file}.tmp`, file);
    await sleep(250);
    await onCall?.(i);
  }
  return `cline:${taskId}`;
}

suite("the words of each state agree on every surface", function () {
  this.timeout(180_000);
  let api: LoopSentinelApi;
  let fake: FakeRoo | undefined;

  suiteSetup(async () => {
    api = await loopSentinel();
    const ext = vscode.extensions.getExtension<FakeRoo>(FAKE_ROO_ID);
    fake = ext ? (ext.isActive ? ext.exports : await ext.activate()) : undefined;
    await vscode.commands.executeCommand("workbench.action.closeSidebar");
  });

  setup(async () => {
    fake?.__test.reset();
    await vscode.commands.executeCommand("loopSentinel.resetDetectors");
  });

  suiteTeardown(async () => {
    await setSetting("actionPolicy", undefined);
    await setSetting("cline.actionPolicy", undefined);
    await vscode.workspace.getConfiguration("workbench").update("colorTheme", undefined, vscode.ConfigurationTarget.Global);
    await closeAllEditors();
  });

  test("replay: every card says what would have been done, nothing past; the saved card agrees; it opens at the top", async () => {
    const rendered = nextRender(api, (r) => r.interventions > 0 && (r.texts?.badges.length ?? 0) > 0);
    const [key] = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(fixture("traces/read-loop.trace.jsonl")));
    const report = await rendered;
    const snap = session(api, (s) => s.key === key)!;
    // One card per loop (issue 36, point 4), each showing its newest step.
    const loops = loopViews(snap.interventions);
    assert.ok(loops.length < snap.interventions.length, "a loop's rungs share one card");
    assert.strictEqual(report.interventions, loops.length);
    const expected = loops.slice().reverse().map((l) => stateWords("replay", snap.interventions.find((i) => i.id === l.id)!.action));
    assert.deepStrictEqual(report.texts!.badges, expected.map((w) => w.short));
    assert.ok(report.texts!.badges.includes("Would stop the task"), report.texts!.badges.join(", "));
    assert.deepStrictEqual(report.texts!.sentences, expected.map((w) => w.sentence));
    assert.strictEqual(report.texts!.mode, "Replay: nothing is sent");
    assert.ok(report.texts!.cards.some((c) => /^Would have saved \(estimate\) \| .* \| If the loop had gone on as long again .*A replay sends nothing\.$/.test(c)), report.texts!.cards.join(" / "));
    assert.ok(!report.texts!.cards.some((c) => /nothing aborted or stopped yet/.test(c)));
    assert.strictEqual(report.scrollTop, 0, "a new replay opens at its top");
    assert.notStrictEqual(api.statusBar().state, "intervened", "a replay never turns the status bar");
    assert.strictEqual(report.liveRegions, 1);
    await screenshot("state-replay.png");
  });

  test("Roo, ask first: waiting for you on every surface, one notification at a time; answered, the host's confirmation is the past tense", async function () {
    if (!fake) { this.skip(); return; }
    await setSetting("actionPolicy", "ask");
    try {
      const taskId = "states-roo-ask";
      const key = `roo-compatible:${taskId}`;
      const most = await maxOpenPerTask(api, key, fake.__test.replay(fixture("roo/tool-loop-auto.json"), { taskId, delayMs: 20 }));
      const asking = await settled(api, key, (r) => r.phase === "asking", "a question");
      assert.strictEqual(most, 1, "one notification per task at a time");
      const snap = session(api, (s) => s.key === key)!;
      assert.ok(snap.interventions.length > 1, "the loop escalated while the question was open");
      // Issue 36, point 2: one notification, its text moved on through the rungs in place (no queue).
      const told = api.notifications().shown.filter((t) => t.sessionKey === key);
      assert.strictEqual(told.filter((t) => !t.replaced).length, 1, `one notification opened for the task: ${JSON.stringify(told)}`);
      assert.ok(told.filter((t) => t.replaced).length >= 1, `a later rung replaced its text: ${JSON.stringify(told)}`);
      const latestAsk = snap.interventions.at(-1)!;
      assert.strictEqual(api.notifications().open.find((t) => t.sessionKey === key)?.mainAction, stateWords("asking", latestAsk.action).actLabel, "its button is the current rung's");
      assert.strictEqual(api.notifications().waiting.length, 0, "nothing queued");
      const open = api.notifications().open.filter((t) => t.sessionKey === key);
      assert.strictEqual(open.length, 1);
      assert.strictEqual(open[0].text.split(": ").slice(1).join(": ").startsWith("Loop detected: waiting for you."), true, open[0].text);
      await assertAgree(api, key, asking, true);
      await screenshot("state-roo-asking-notification.png", undefined, { keepToasts: true });
      await screenshot("state-roo-asking.png");
      await screenshot("state-roo-asking-tooltip.png", "Loop detected");

      // The answer from the panel's (or the tooltip's) button: the host acts, and only then the past tense.
      assert.strictEqual(await vscode.commands.executeCommand("loopSentinel.answerIntervention", key, asking.id, "act"), true);
      const answered = await settled(api, key, (r) => r.id === asking.id && r.phase !== "asking", "the host's answer");
      assert.ok(["done", "failed", "pending"].includes(answered.phase), answered.phase);
      await assertAgree(api, key, answered, answered.phase !== "pending");
      await screenshot(`state-roo-answered-${answered.phase}.png`);
      await closeAll(api, key);
    } finally {
      await setSetting("actionPolicy", undefined);
    }
  });

  test("Roo, automatic: done as the host confirmed it, in the same words everywhere", async function () {
    if (!fake) { this.skip(); return; }
    const taskId = "states-roo-auto";
    const key = `roo-compatible:${taskId}`;
    const most = await maxOpenPerTask(api, key, fake.__test.replay(fixture("roo/tool-loop-auto.json"), { taskId }));
    const done = await settled(api, key, (r) => r.phase === "done" && r.action !== "warn", "a stronger step done");
    assert.ok(most <= 1, `at most one notification open for the task (${most})`);
    assert.strictEqual(done.ok, true);
    await assertAgree(api, key, done, true);
    await screenshot("state-roo-done.png");
    await screenshot("state-roo-done-tooltip.png", "Loop detected");
    await closeAll(api, key);
  });

  // Issue 36, point 1: the suite's Cline tasks are seen only through their files (no Cline in this host):
  // whatever the policy, nothing is asked or tried, and the one offer is the hook, once.
  for (const policy of ["ask", "automatic"] as const) {
    test(`Cline seen only through its files, ${policy}: no failing action offered; the one offer is the hook, once`, async function () {
      if (!CLINE_DATA) { this.skip(); return; }
      for (const found of [true, false]) {
        const offer = clineHookOffer(found);
        assert.doesNotMatch(offer, /rung|PreToolUse/);
        if (!found) assert.doesNotMatch(offer, /found Cline|Cline is installed/);
      }
      if (policy === "automatic") await setSetting("cline.actionPolicy", "automatic");
      try {
        const taskId = `states-cline-${policy}-${Date.now()}`;
        const key = `cline:${taskId}`;
        const reports: RenderReport[] = [];
        let focusedFrom = -1;
        const sub = api.onDidRenderPanel((r) => { if (r.selected === key) reports.push(r); });
        const most = await maxOpenPerTask(api, key, writeClineLoop(taskId, 8, policy === "ask" ? undefined : async (i) => {
          // With the panel open on the task before the loop is found: the updates arrive live.
          if (i === 1) {
            await waitFor("the Cline task", () => session(api, (s) => s.key === key));
            const shown = nextRender(api, (r) => r.selected === key && r.timelineEntries > 0);
            await vscode.commands.executeCommand("loopSentinel.showDiagnostics", key);
            await shown;
            // A keyboard user on the timeline: the live updates that follow must leave them there.
            await focusInWebview("#timeline");
            focusedFrom = reports.length;
          }
        }));
        const latest = await settled(api, key, (r) => r.action === "stop", "the Cline loop's stop rung");
        await sleep(600);
        sub.dispose();
        if (policy === "automatic") {
          const announced = reports.map((r) => r.announced).filter(Boolean);
          assert.ok(announced.length > 0 && announced.length < reports.length, `announcements ${announced.length} of ${reports.length} renders: ${JSON.stringify(announced)}`);
          assert.ok(reports.every((r) => r.liveRegions === 1));
          const afterFocus = reports.slice(focusedFrom).filter((r) => r.interventions > 0);
          assert.ok(focusedFrom >= 0 && afterFocus.length > 0, `live renders after the focus: ${afterFocus.length}`);
          assert.deepEqual([...new Set(afterFocus.map((r) => r.focused))], ["timeline"], "keyboard focus stayed on the timeline through every live update");
        }
        const snap = session(api, (s) => s.key === key)!;
        assert.deepEqual([...new Set(snap.interventions.map((r) => r.phase))], ["unavailable"], "every rung: nothing asked, nothing tried");
        assert.ok(snap.interventions.every((r) => r.ok !== false), "no failed action");
        assert.strictEqual(snap.canResume, false, "no Resume with guidance");
        assert.strictEqual(most, 1, "one notification for the task");
        const told = api.notifications().shown.filter((t) => t.sessionKey === key);
        assert.strictEqual(told.length, 1, `told once: ${JSON.stringify(told)}`);
        assert.match(told[0].text, /Install the Cline hook/);
        assert.match(told[0].text, /loop-sentinel watch --cline-data /);
        assert.doesNotMatch(told[0].text, /Abort the response|Stop the task|could not|stopped|API/);
        const open = api.notifications().open.find((t) => t.sessionKey === key);
        assert.strictEqual(open?.mainAction, "Install the Cline hook", "the one action offered");
        assert.strictEqual(open?.severity, "warning", "not a red error");
        const bar = api.statusBar();
        assert.strictEqual(bar.label, stateWords("unavailable", latest.action).headline);
        assert.doesNotMatch(plain(bar.tooltip), /Abort the response\]|Stop the task\]|Dismiss\]/);
        assert.ok(bar.tooltip.includes("command:loopSentinel.installClineHook"), bar.tooltip);
        const report = await panelShows(api, key, latest);
        assert.strictEqual(report.texts!.badges[0], "Cannot act from here");
        assert.ok(!report.texts!.buttons.some((b) => /Abort the response|Stop the task|Resume with guidance/.test(b)), report.texts!.buttons.join(", "));
        assert.ok(report.texts!.buttons.includes("Install the Cline hook"), report.texts!.buttons.join(", "));
        await screenshot(`cline-files-only-${policy}-notification.png`, undefined, { keepToasts: true });
        await screenshot(`cline-files-only-${policy}-panel.png`);
        await screenshot(`cline-files-only-${policy}-tooltip.png`, "Loop detected");
        await closeAll(api, key);
      } finally {
        await setSetting("cline.actionPolicy", undefined);
      }
    });
  }

  for (const theme of ["Default Light Modern", "Default Dark Modern"]) {
    test(`contrast of the panel's text is at least 4.5:1 in ${theme}, measured from the rendered colours`, async () => {
      // The richest sessions the suite made (a question answered, a highlighted passage, a delivery
      // badge; a failure with the host's account), else a replay.
      const rich = api.snapshots().filter((s) => s.taskId === "states-roo-ask" || s.taskId.startsWith("states-cline-automatic")).map((s) => s.key);
      const keys = rich.length ? rich : await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(fixture("traces/read-loop.trace.jsonl")));
      await vscode.workspace.getConfiguration("workbench").update("colorTheme", theme, vscode.ConfigurationTarget.Global);
      await sleep(1500);
      const measured: NonNullable<RenderReport["contrast"]>[] = [];
      for (const key of keys) {
        const rendered = nextRender(api, (r) => r.selected === key && !!r.contrast && r.interventions > 0);
        await vscode.commands.executeCommand("loopSentinel.showDiagnostics", key);
        const c = (await rendered).contrast!;
        console.log(`contrast ${theme}, ${key}: min ${c.min}:1 over ${c.count} text elements; lowest: ${JSON.stringify(c.worst.slice(0, 3))}`);
        measured.push(c);
        await screenshot(`panel-${theme.includes("Light") ? "light" : "dark"}-${key.split(":")[0]}.png`);
      }
      fs.writeFileSync(path.join(process.env.LS_TEST_ARTIFACTS ?? ".", `contrast-${theme.replace(/\s+/g, "-").toLowerCase()}.json`), JSON.stringify(measured, null, 2));
      for (const c of measured) {
        assert.ok(c.count > 20, `text measured: ${c.count}`);
        assert.ok(c.min >= 4.5, `lowest contrast ${c.min}:1 at ${JSON.stringify(c.worst[0])}`);
      }
    });
  }

  test("at 1,030 px the header keeps the session's name whole", async () => {
    const [key] = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(fixture("traces/read-loop.trace.jsonl")));
    try {
      await setViewport(1030, 800);
      const rendered = nextRender(api, (r) => r.selected === key && r.headerFits !== undefined);
      await vscode.commands.executeCommand("loopSentinel.showDiagnostics", key);
      const report = await rendered;
      assert.strictEqual(report.headerFits, true);
      await screenshot("panel-1030px.png");
    } finally {
      await setViewport(1280, 800);
    }
  });
});
