/**
 * What a new user meets before any task ran: a status bar item that reads as on (not a grey
 * eye-closed), and an empty panel that says what is watched (or that no agent is installed) and
 * offers real buttons. Runs before any replay, so that no session exists yet.
 */
import * as assert from "node:assert";
import * as vscode from "vscode";
import { emptyStateText } from "../../../src/extension/panelWords";
import { closeAllEditors, loopSentinel, nextRender, screenshot, waitFor } from "./helpers";

suite("first look", () => {
  suiteTeardown(closeAllEditors);

  test("idle, the status bar reads as on and names what it watches; the tooltip folds the agents not installed", async () => {
    const api = await loopSentinel();
    // With the test-only Roo installed, wait until it is found, so the item's text is not about to change under the hover.
    if (vscode.extensions.getExtension("loop-sentinel-test.fake-roo")) await waitFor("the fake Roo watched", () => api.statusBar().state === "watching", 20_000);
    const bar = api.statusBar();
    assert.ok(["no-host", "watching"].includes(bar.state), bar.state);
    assert.doesNotMatch(bar.text, /eye-closed|: off|Loop Sentinel: \d/, bar.text);
    if (bar.state === "watching") assert.match(bar.label, /^Watching .+ \((no task yet|\d+ tasks?)\)$/);
    else assert.strictEqual(bar.label, "Loop Sentinel: ready");
    assert.match(bar.tooltip, /^- Not installed: .+$/m, "the agents not installed are one line");
    assert.doesNotMatch(bar.tooltip, /not-found/);
    // Issue 36, point 3: with none of the hook agents here, none is named as found or watched.
    const named = bar.tooltip.split("\n").filter((l) => !/^- Not installed:/.test(l)).join("\n");
    assert.doesNotMatch(named, /Claude Code|Copilot|Codex/, "no hook agent claimed");
    assert.doesNotMatch(bar.tooltip, /Install Agent Hook/, "commands are named as the palette names them");
    const hooks = api.overall().kind !== "disabled" ? (api.overall() as { hosts: Array<{ hostId: string; state: string }> }).hosts.find((h) => h.hostId === "agent-hooks") : undefined;
    assert.strictEqual(hooks?.state, "not-found");
    await screenshot("status-bar-idle.png", bar.state === "watching" ? "Watching" : "Loop Sentinel");
  });

  test("the empty panel says what is watched, or that no agent is installed, and has buttons", async function () {
    const api = await loopSentinel();
    if (api.snapshots().length > 0) { this.skip(); return; }
    const rendered = nextRender(api, (r) => r.texts?.empty !== undefined);
    await vscode.commands.executeCommand("loopSentinel.showDiagnostics");
    const report = await rendered;
    const overall = api.overall();
    const hosts = "hosts" in overall ? overall.hosts : [];
    const expected = emptyStateText({ found: hosts.filter((h) => h.state !== "not-found").map((h) => h.label), watching: hosts.filter((h) => h.state === "watching").map((h) => h.label) });
    assert.strictEqual(report.texts!.empty, expected);
    assert.doesNotMatch(report.texts!.empty!, /Claude Code|Copilot|Codex/, "no hook agent named as watched");
    for (const b of ["Replay a session file…", "Open walkthrough"]) assert.ok(report.texts!.buttons.includes(b), `button ${b}: ${report.texts!.buttons.join(", ")}`);
    assert.strictEqual(report.liveRegions, 1, "one small live region, not the whole panel");
    assert.ok(report.contrast && report.contrast.min >= 4.5, `contrast ${JSON.stringify(report.contrast)}`);
    await screenshot("panel-empty.png");
  });
});
