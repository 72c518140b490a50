import * as assert from "node:assert";
import * as vscode from "vscode";
import { closeAllEditors, EXTENSION_ID, fixture, loopSentinel, openTabLabels, screenshot, setSetting, sleep, waitFor } from "./helpers";
import type { SessionSnapshot } from "../../../src/extension/sessionManager";

const READ_LOOP = fixture("traces/read-loop.trace.jsonl");

async function replay(): Promise<SessionSnapshot> {
  const api = await loopSentinel();
  const [key] = await vscode.commands.executeCommand<string[]>("loopSentinel.replaySession", vscode.Uri.file(READ_LOOP));
  const snap = api.snapshots().find((s) => s.key === key);
  assert.ok(snap, "replayed session");
  return snap;
}

suite("settings", () => {
  teardown(async () => {
    await setSetting("sameToolCall.warnAt", undefined);
    await setSetting("perTool", undefined);
    await setSetting("guidance", undefined);
  });

  test("every detector of the engine has its settings contributed", async () => {
    const api = await loopSentinel();
    const props = Object.assign({}, ...(vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.configuration as Array<{ properties: object }>).map((c) => c.properties));
    const detectors = api.snapshots()[0]?.detectors ?? [];
    assert.ok(detectors.length > 0);
    for (const d of detectors) {
      // One vocabulary: the key is the name the panel shows ("Same tool call" → loopSentinel.sameToolCall.*).
      const name = d.title.split(/[\s-]+/).map((w, i) => (i ? w.charAt(0).toUpperCase() + w.slice(1).toLowerCase() : w.toLowerCase())).join("");
      for (const rung of ["enabled", "warnAt", "blockAt", "stopAt"]) assert.ok(`loopSentinel.${name}.${rung}` in props, `${d.id}: loopSentinel.${name}.${rung}`);
    }
    for (const key of ["enabled", "mode", "actionPolicy", "perTool", "guidance", "toolNames"]) assert.ok(`loopSentinel.${key}` in props, key);
  });

  test("a detector threshold applies live", async () => {
    const defaults = await replay();
    assert.strictEqual(defaults.interventions[0].evidence.count, 3);
    await setSetting("sameToolCall.warnAt", 2);
    const lower = await replay();
    assert.strictEqual(lower.interventions[0].action, "warn");
    assert.strictEqual(lower.interventions[0].evidence.count, 2);
    assert.ok(lower.interventions[0].event < defaults.interventions[0].event, "warns one call earlier");
  });

  test("an invalid value gets a warning and its default, never a crash", async () => {
    const api = await loopSentinel();
    const defaults = await replay();
    await setSetting("sameToolCall.warnAt", -1);
    await waitFor("a settings warning", () => api.settingsWarnings().some((w) => w.includes("loopSentinel.sameToolCall.warnAt")));
    const after = await replay();
    assert.deepStrictEqual(after.interventions.map((i) => [i.event, i.action]), defaults.interventions.map((i) => [i.event, i.action]));
    await setSetting("sameToolCall.warnAt", undefined);
    await waitFor("warnings cleared", () => api.settingsWarnings().length === 0);
  });

  test("a per-tool exemption silences that tool", async () => {
    await setSetting("perTool", { read_file: { exempt: true } });
    const snap = await replay();
    assert.strictEqual(snap.timeline.filter((e) => e.kind === "tool").length, 8, "calls are still recorded");
    assert.deepStrictEqual(snap.interventions, []);
  });

  test("a guidance text replaces the built-in one", async () => {
    await setSetting("guidance", { "tool-repeat": "You read it {count} times already; use what you have." });
    const snap = await replay();
    assert.strictEqual(snap.interventions[0].message, "You read it 3 times already; use what you have.");
  });

  test("the Settings editor lists a detector's settings under its one name (picture for issue 36, point 5)", async () => {
    await closeAllEditors();
    await vscode.commands.executeCommand("workbench.action.openSettings", "@ext:loop-sentinel.loop-sentinel sameToolCall");
    await waitFor("a Settings tab", () => openTabLabels().some((l) => /settings/i.test(l)));
    await sleep(1500);
    // Titled "Same Tool Call: Warn At" (from the key), under the group "Same tool call"; the mode's dropdown shows "Intervene".
    await screenshot("settings-detector-names.png");
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
    const group = pkg.contributes.configuration.find((c: { id: string }) => c.id === "loopSentinel.sameToolCall");
    assert.strictEqual(group?.title, "Same tool call");
    await closeAllEditors();
  });
});
