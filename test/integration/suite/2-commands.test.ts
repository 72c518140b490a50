import { loopViews } from "../../../src/extension/panelWords";
import * as assert from "node:assert";
import * as vscode from "vscode";
import { readSessions } from "../../../src/formats";
import { replayEvents } from "../../../src/engine/replay";
import { closeAllEditors, fixture, loopSentinel, nextRender, openTabLabels, screenshot, setSetting, waitFor } from "./helpers";

const READ_LOOP = fixture("traces/read-loop.trace.jsonl");

suite("commands", () => {
  suiteTeardown(async () => {
    await setSetting("enabled", undefined);
    await setSetting("mode", undefined);
    await closeAllEditors();
  });

  test("Show Diagnostics opens the panel and its webview renders", async () => {
    const api = await loopSentinel();
    await closeAllEditors();
    const rendered = nextRender(api, () => true);
    await vscode.commands.executeCommand("loopSentinel.showDiagnostics");
    await rendered;
    assert.ok(api.panelVisible());
    assert.ok(openTabLabels().includes("Loop Sentinel"), `tabs: ${openTabLabels().join(", ")}`);
  });

  test("Replay Session File… runs the engine over a trace and shows its timeline and interventions", async () => {
    const api = await loopSentinel();
    const rendered = nextRender(api, (r) => r.interventions > 0 && r.timelineEntries > 0);
    const keys = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(READ_LOOP));
    assert.strictEqual(keys.length, 1);
    const report = await rendered;
    assert.strictEqual(report.selected, keys[0], "the panel shows the replayed session");
    const snap = api.snapshots().find((s) => s.key === keys[0]);
    assert.ok(snap);
    // read_file src/config.ts eight times with identical output: the panel shows what the engine decides on that file.
    const [recorded] = readSessions([READ_LOOP], { lenient: false });
    const expected = replayEvents(recorded.events).interventions.map((i) => [i.event, i.detector, i.action]);
    assert.deepStrictEqual(snap.interventions.map((i) => [i.event, i.detector, i.action]), expected);
    assert.ok(expected.some(([, , a]) => a === "warn") && expected.some(([, , a]) => a === "stop"), "the loop escalates to a stop");
    // One card per loop: the rungs of one finding share a card (issue 36, point 4).
    assert.strictEqual(report.interventions, loopViews(snap.interventions).length);
    assert.ok(report.interventions < expected.length, `cards ${report.interventions}, rungs ${expected.length}`);
    assert.strictEqual(report.timelineEntries, snap.timeline.length);
    assert.ok(report.flaggedEntries >= 3, `the repeated calls are highlighted in the webview (${report.flaggedEntries})`);
    assert.strictEqual(report.detectorRows, snap.detectors.length, "every detector's state is shown");
    const calls = snap.timeline.filter((e) => e.kind === "tool");
    assert.strictEqual(calls.length, 8);
    assert.deepStrictEqual(calls.map((c) => c.repeat), [1, 2, 3, 4, 5, 6, 7, 8], "repeat counts of the identical call");
    assert.ok(calls.filter((c) => c.flagged).length >= 3, "the repeated calls are highlighted as evidence");
    assert.ok(snap.interventions.every((i) => i.phase === "replay"), "a replay sends nothing");
    await screenshot("panel-replay.png");
  });

  test("the panel comes back with the same session after its webview was discarded", async () => {
    const api = await loopSentinel();
    const [key] = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(fixture("traces/poll-ok.trace.jsonl")));
    const [other] = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(READ_LOOP));
    assert.notStrictEqual(key, other);
    // The user picks the first session in the webview's selector (the webview keeps it in its state).
    const picked = nextRender(api, (r) => r.selected === key);
    await vscode.commands.executeCommand("loopSentinel.showDiagnostics", key);
    await picked;
    // Another editor in the same group hides the panel: its webview is discarded (no retained context).
    const doc = await vscode.workspace.openTextDocument({ content: "scratch" });
    await vscode.window.showTextDocument(doc, { preview: false });
    await waitFor("the panel hidden", () => !api.panelVisible());
    const restored = nextRender(api, () => true);
    await vscode.commands.executeCommand("loopSentinel.showDiagnostics");
    assert.strictEqual((await restored).selected, key, "same session shown again");
    await closeAllEditors();
  });

  test("Replay Session File… on a file no reader understands reports it and keeps working", async () => {
    const api = await loopSentinel();
    const before = api.snapshots().length;
    const keys = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(fixture("traces/not-a-session.txt")));
    assert.deepStrictEqual(keys, []);
    assert.strictEqual(api.snapshots().length, before);
  });

  test("Replay of a productive session (polling CI with changing output) shows no intervention", async () => {
    const api = await loopSentinel();
    const [key] = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(fixture("traces/poll-ok.trace.jsonl")));
    const snap = api.snapshots().find((s) => s.key === key)!;
    assert.ok(snap.timeline.length > 0);
    assert.deepStrictEqual(snap.interventions, []);
  });

  test("Configure opens the Settings editor", async () => {
    await closeAllEditors();
    await vscode.commands.executeCommand("loopSentinel.configure");
    await waitFor("a Settings tab", () => openTabLabels().some((l) => /settings/i.test(l)));
    await closeAllEditors();
  });

  test("Turn Off / Turn On: only the one that applies is in the palette, and the status bar says so", async () => {
    const api = await loopSentinel();
    const palette = vscode.extensions.getExtension("loop-sentinel.loop-sentinel")!.packageJSON.contributes.menus.commandPalette as Array<{ command: string; when: string }>;
    const when = (id: string) => palette.find((m) => m.command === id)?.when;
    assert.strictEqual(when("loopSentinel.turnOff"), "loopSentinel.enabled");
    assert.strictEqual(when("loopSentinel.turnOn"), "!loopSentinel.enabled");
    assert.strictEqual(when("loopSentinel.toggleEnabled"), "false", "the toggle leaves the palette to the titled pair");
    // One palette command per job: the mode is chosen by "Choose Warn-Only or Intervene…" alone.
    assert.strictEqual(when("loopSentinel.switchToWarnOnly"), "false");
    assert.strictEqual(when("loopSentinel.switchToIntervening"), "false");
    assert.strictEqual(when("loopSentinel.chooseMode"), undefined, "always in the palette");
    assert.match(when("loopSentinel.removeClineHook") ?? "", /loopSentinel\.clineHookInstalled/);
    assert.match(when("loopSentinel.connectKilo") ?? "", /loopSentinel\.kiloFound/);
    assert.strictEqual(api.contextKeys()["loopSentinel.enabled"], true);
    assert.strictEqual(api.contextKeys()["loopSentinel.clineHookInstalled"], false);
    await vscode.commands.executeCommand("loopSentinel.turnOff");
    await waitFor("status bar: off", () => api.statusBar().state === "disabled" && api.contextKeys()["loopSentinel.enabled"] === false);
    await vscode.commands.executeCommand("loopSentinel.turnOn");
    await waitFor("status bar: on", () => api.statusBar().state !== "disabled" && api.contextKeys()["loopSentinel.enabled"] === true);
    await vscode.commands.executeCommand("loopSentinel.switchToWarnOnly");
    await waitFor("warn-only", () => api.contextKeys()["loopSentinel.warnOnly"] === true);
    await vscode.commands.executeCommand("loopSentinel.switchToIntervening");
    await waitFor("intervening", () => api.contextKeys()["loopSentinel.warnOnly"] === false);
  });

  test("Toggle Enabled switches watching off and on, and the status bar says so", async () => {
    const api = await loopSentinel();
    assert.strictEqual(await vscode.commands.executeCommand("loopSentinel.toggleEnabled"), false);
    await waitFor("status bar: off", () => api.statusBar().state === "disabled");
    assert.match(api.statusBar().text, /off/);
    assert.strictEqual(vscode.workspace.getConfiguration("loopSentinel").get("enabled"), false);
    // While off, a replay detects nothing.
    const [key] = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(READ_LOOP));
    assert.deepStrictEqual(api.snapshots().find((s) => s.key === key)!.interventions, []);
    assert.strictEqual(await vscode.commands.executeCommand("loopSentinel.toggleEnabled"), true);
    await waitFor("status bar: on", () => api.statusBar().state !== "disabled");
  });

  test("Toggle Warn-Only turns every intervention into a warning, and back", async () => {
    const api = await loopSentinel();
    assert.strictEqual(await vscode.commands.executeCommand("loopSentinel.toggleWarnOnly"), "warnOnly");
    const [key] = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(READ_LOOP));
    const actions = api.snapshots().find((s) => s.key === key)!.interventions.map((i) => i.action);
    assert.ok(actions.length > 0);
    assert.ok(actions.every((a) => a === "warn"), actions.join(","));
    assert.strictEqual(await vscode.commands.executeCommand("loopSentinel.toggleWarnOnly"), "intervene");
    const [again] = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(READ_LOOP));
    assert.ok(api.snapshots().find((s) => s.key === again)!.interventions.some((i) => i.action === "stop"));
  });

  test("Reset Detectors runs and leaves every session without an alert", async () => {
    const api = await loopSentinel();
    assert.ok(api.snapshots().some((s) => s.alert !== "none"), "the replays above left alerts");
    await vscode.commands.executeCommand("loopSentinel.resetDetectors");
    assert.ok(api.snapshots().every((s) => s.alert === "none"));
    assert.ok(["no-host", "watching"].includes(api.statusBar().state));
  });
});
