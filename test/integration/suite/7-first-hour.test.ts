/** A new user's first hour: the Get Started walkthrough, its example, the mode choice, the Extensions page, Configure. */
import * as assert from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { ARTIFACTS, EXTENSION_ID, closeAllEditors, loopSentinel, nextRender, openTabLabels, screenshot, setSetting, sleep, waitFor } from "./helpers";

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

  test("the Extensions view shows the page written for users", async () => {
    await closeAllEditors();
    await vscode.commands.executeCommand("extension.open", EXTENSION_ID);
    await waitFor("the extension's page", () => openTabLabels().some((l) => /Loop Sentinel/.test(l)), 15_000);
    // The README renders in a webview: wait until the runner sees its picture there, loaded.
    const file = path.join(ARTIFACTS, "extension-page-images.json");
    let images: Array<{ alt: string; src: string; loaded: boolean; width: number }> = [];
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && !images.some((i) => /Loop Sentinel panel/.test(i.alt) && i.loaded)) {
      fs.rmSync(file, { force: true });
      console.log(`__IMAGES__ ${file}`);
      await waitFor("the runner's image list", () => fs.existsSync(file), 10_000);
      images = JSON.parse(fs.readFileSync(file, "utf8"));
      await sleep(500);
    }
    await screenshot("extension-page.png");
    const picture = images.find((i) => /Loop Sentinel panel/.test(i.alt));
    assert.ok(picture, `the README's picture is on the page (images: ${JSON.stringify(images.map((i) => i.alt.slice(0, 30)))})`);
    assert.ok(picture.loaded && picture.width > 100, `the picture rendered: ${JSON.stringify(picture)}`);
    await closeAllEditors();
  });
});
