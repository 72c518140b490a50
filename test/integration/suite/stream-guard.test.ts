/**
 * The stream guard inside the real extension host: turned on from the palette command, it points
 * Claude Code's settings (this run's own HOME) at a guard on 127.0.0.1 in front of the endpoint
 * they named before (a looping fake provider here); a request as Claude Code sends it is cut, the
 * session shows in the status bar and the panel with the agent's name, the guidance reaches the
 * provider in the next request, and turning it off puts the file back byte for byte.
 */
import * as assert from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { LoopingUpstream, GUIDANCE_MARK } from "../../fakeLoopingUpstream";
import { PATHS, copies, firstRequest, followUp, send } from "../../unit/streamGuardKit";
import { loopSentinel, nextRender, screenshot, setSetting, waitFor } from "./helpers";

const SESSION = { "x-claude-code-session-id": "5be0a7d2-integration" };

suite("stream guard in the extension host", () => {
  const settingsFile = path.join(process.env.CLAUDE_CONFIG_DIR || path.join(process.env.HOME || os.homedir(), ".claude"), "settings.json");
  let up: LoopingUpstream;

  suiteSetup(async () => {
    up = new LoopingUpstream({ delayMs: 5 });
    await up.start();
  });
  suiteTeardown(async () => {
    await vscode.commands.executeCommand("loopSentinel.turnOffStreamGuard");
    await vscode.commands.executeCommand("loopSentinel.resetDetectors");
    await setSetting("streamGuard.enabled", undefined);
    await setSetting("streamGuard.agents", undefined);
    await up.stop();
  });

  test("is off by default: no agent pointed, nothing listening", async () => {
    const api = await loopSentinel();
    assert.deepStrictEqual(api.streamGuard(), []);
    assert.strictEqual(vscode.workspace.getConfiguration("loopSentinel").get("streamGuard.enabled"), false);
  });

  test("Turn On the Stream Guard points Claude Code at it, cuts a looping answer, shows the session, delivers the guidance, and Turn Off puts the file back byte for byte", async function () {
    this.timeout(60_000);
    const api = await loopSentinel();
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    fs.writeFileSync(settingsFile, `{\n    "model": "opus",\n    "env": {\n        "ANTHROPIC_BASE_URL": "${up.url}",\n        "DISABLE_TELEMETRY": "1"\n    }\n}`);
    const before = fs.readFileSync(settingsFile);

    const reports = await vscode.commands.executeCommand<Array<{ agent: string; state: string; detail: string }>>("loopSentinel.turnOnStreamGuard", ["claude"]);
    assert.deepStrictEqual(reports.map((r) => `${r.agent}:${r.state}`), ["claude:pointed"], JSON.stringify(reports));
    const [guarded] = api.streamGuard();
    assert.strictEqual(guarded.upstream, up.url);
    assert.match(guarded.url, /^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{24}$/);
    const now = JSON.parse(fs.readFileSync(settingsFile, "utf8"));
    assert.deepStrictEqual(now, { model: "opus", env: { ANTHROPIC_BASE_URL: guarded.url, DISABLE_TELEMETRY: "1" } });
    await waitFor("the palette offers Turn Off", () => api.contextKeys()["loopSentinel.streamGuardOn"] === true);

    // Claude Code's request, sent where its settings now point.
    const first = firstRequest("anthropic");
    const got = await send(guarded.url, PATHS.anthropic, first, SESSION);
    assert.ok(copies(got.text) < 6, `cut after ${copies(got.text)} copies`);
    assert.ok(got.text.includes("[Loop Sentinel stopped this response"));
    const snap = await waitFor("the guard's session in the SessionManager", () => api.snapshots().find((s) => s.hostId === "stream-guard"));
    assert.match(snap.title, /^Claude Code 5be0a7d2/);
    assert.strictEqual(snap.hostLabel, "Stream guard");
    const abort = snap.interventions.find((r) => r.action === "abort");
    assert.ok(abort && abort.phase === "done", JSON.stringify(snap.interventions));
    assert.strictEqual(abort.delivery, "pending");
    await waitFor("the status bar says it intervened", () => api.overall().kind === "intervened");

    await send(guarded.url, PATHS.anthropic, followUp("anthropic", first, got, "Please continue"), SESSION);
    assert.ok(JSON.stringify(up.main()[1].body).includes(GUIDANCE_MARK), "the provider got the guidance");
    await waitFor("the guidance counted as delivered", () => api.snapshots().find((s) => s.hostId === "stream-guard")?.interventions.find((r) => r.action === "abort")?.delivery === "delivered");

    const rendered = nextRender(api, (r) => r.selected === snap.key && r.interventions > 0);
    await vscode.commands.executeCommand("loopSentinel.showDiagnostics", snap.key);
    await rendered;
    await screenshot("stream-guard-panel.png");

    const off = await vscode.commands.executeCommand<Array<{ agent: string; state: string }>>("loopSentinel.turnOffStreamGuard");
    assert.deepStrictEqual(off.map((r) => `${r.agent}:${r.state}`), ["claude:restored"]);
    assert.ok(fs.readFileSync(settingsFile).equals(before), "the settings file is back byte for byte");
    assert.deepStrictEqual(api.streamGuard(), []);
    assert.strictEqual(vscode.workspace.getConfiguration("loopSentinel").get("streamGuard.enabled"), false);
  });
});
