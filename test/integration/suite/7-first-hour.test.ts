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

  test("its example replays a loop that reaches every step: a warning, a refused call, a stop", async () => {
    const api = await loopSentinel();
    const rendered = nextRender(api, (r) => r.interventions > 0);
    const keys = await vscode.commands.executeCommand<string[]>("loopSentinel.replayExample");
    assert.strictEqual(keys.length, 1, "the example ships in the package");
    await rendered;
    const snap = api.snapshots().find((s) => s.key === keys[0]);
    assert.ok(snap);
    assert.deepStrictEqual([...new Set(snap.interventions.map((i) => i.action))], ["warn", "block", "stop"]);
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
