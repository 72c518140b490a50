/**
 * A new user's first hour: the Get Started walkthrough, its example, the mode choice, Configure.
 * (The Extensions view's page is checked by runner/extension-page.mjs: it needs the VSIX installed,
 * and the extension under test here is loaded for development, which that view does not list.)
 */
import * as assert from "node:assert";
import * as vscode from "vscode";
import { closeAllEditors, loopSentinel, nextRender, openTabLabels, screenshot, setSetting, sleep, waitFor } from "./helpers";

suite("first hour", () => {
  suiteTeardown(async () => {
    await setSetting("mode", undefined);
    await closeAllEditors();
  });

  test("Get Started opens the walkthrough", async () => {
    await closeAllEditors();
    await vscode.commands.executeCommand("loopSentinel.openWalkthrough");
    // VS Code shows a walkthrough in its Welcome editor.
    await waitFor("the walkthrough's tab", () => openTabLabels().some((l) => /welcome|walkthrough/i.test(l)), 15_000);
    await sleep(1000);
    await screenshot("walkthrough.png");
  });

  test("its example replays a loop that reaches every step and visibly saves tokens; text, picture and timeline agree", async () => {
    const api = await loopSentinel();
    await closeAllEditors();
    const rendered = nextRender(api, (r) => r.interventions > 0 && (r.texts?.cards.length ?? 0) > 0);
    const keys = await vscode.commands.executeCommand<string[]>("loopSentinel.replayExample");
    assert.strictEqual(keys.length, 1, "the example ships in the package");
    const report = await rendered;
    const snap = api.snapshots().find((s) => s.key === keys[0]);
    assert.ok(snap);
    assert.deepStrictEqual([...new Set(snap.interventions.map((i) => i.action))], ["warn", "block", "stop"]);
    // Issue 36, point 6: the example saves tokens, and says so.
    assert.ok(snap.savedEstimate.tokens > 10_000, `would have saved ${snap.savedEstimate.tokens} tokens`);
    assert.ok(snap.spentInLoops.cost > 0, "its model has a known price");
    const saved = report.texts!.cards.find((c) => c.startsWith("Would have saved"))!;
    assert.match(saved, /^Would have saved \(estimate\) \| [1-9][\d,]+ tokens \| If the loop had gone on as long again \(\d+ requests, \$[\d.]+\)\. A replay sends nothing\.$/, saved);
    assert.ok(report.texts!.cards.some((c) => /^Tokens \| [1-9]/.test(c)), report.texts!.cards.join(" / "));
    // The walkthrough's words and picture say seven reads: so does the timeline.
    const reads = snap.timeline.filter((e) => e.kind === "tool");
    assert.strictEqual(reads.length, 7);
    assert.strictEqual(Math.max(...reads.map((e) => e.repeat ?? 0)), 7);
    const pkg = vscode.extensions.getExtension("loop-sentinel.loop-sentinel")!.packageJSON;
    const step = pkg.contributes.walkthroughs[0].steps.find((s: { id: string }) => s.id === "example");
    assert.match(step.description, /seven times/);
    assert.match(step.media.altText, /seven times/);
    assert.doesNotMatch(`${step.description} ${step.media.altText}`, /eight|\b8\b/);
    // The replay's guidance never says it stopped anything.
    const guidance = report.texts!.sentences.join(" ");
    assert.doesNotMatch(guidance, /Loop Sentinel stopped the task/);
    await sleep(500);
    // The picture the walkthrough shows (media/walkthrough/panel.png is this, quantized).
    await screenshot("walkthrough-example-panel.png", undefined, { clipEditor: true });
  });

  test("the walkthrough is offered once, on the first start", async () => {
    const api = await loopSentinel();
    const offers = api.offers().filter((o) => /Get Started/.test(o));
    assert.strictEqual(offers.length, 1, JSON.stringify(api.offers()));
  });

  test("the mode step sets warn-only and back", async () => {
    assert.strictEqual(await vscode.commands.executeCommand("loopSentinel.chooseMode", "warnOnly"), "warnOnly");
    assert.strictEqual(vscode.workspace.getConfiguration("loopSentinel").get("mode"), "warnOnly");
    assert.strictEqual(await vscode.commands.executeCommand("loopSentinel.chooseMode", "intervene"), "intervene");
    assert.strictEqual(vscode.workspace.getConfiguration("loopSentinel").get("mode"), "intervene");
  });

  test("Configure opens the Settings editor on the tab that holds the main switches", async () => {
    await closeAllEditors();
    await vscode.commands.executeCommand("loopSentinel.configure");
    await waitFor("a Settings tab", () => openTabLabels().some((l) => /settings/i.test(l)));
    await sleep(1000);
    await screenshot(vscode.env.remoteName ? "settings-remote-tab.png" : "settings-user-tab.png");
    await closeAllEditors();
  });
});
