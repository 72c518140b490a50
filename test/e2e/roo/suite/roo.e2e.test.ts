/**
 * The real Roo Code 3.52.1 (shared/hosts/roo-real) and Loop Sentinel's own VSIX in one real extension
 * host, Roo driven through its API against a fake model in this process. Every assertion is about
 * what the model received (guidance or nothing) and what Loop Sentinel reports; nothing is simulated
 * between Roo and Loop Sentinel. LS_E2E_ROO_ID runs the same scenarios under another extension id
 * (Zoo Code: Roo's build repacked under Zoo's id).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { FakeModel, type ModelRequest } from "./fakeModel";
import type { LoopSentinelApi } from "../../../../src/extension/extension";
import { nextRender, screenshot } from "../../../integration/suite/helpers";

const ROO_ID = process.env.LS_E2E_ROO_ID || "RooVeterinaryInc.roo-cline";
const HOST_LABEL = process.env.LS_E2E_HOST_LABEL || "Roo Code";
const ARTIFACTS = process.env.LS_TEST_ARTIFACTS;

interface RooApi {
  on(e: string, l: (...a: unknown[]) => void): unknown;
  off(e: string, l: (...a: unknown[]) => void): unknown;
  startNewTask(o: { text: string }): Promise<string>;
  setConfiguration(v: Record<string, unknown>): Promise<void>;
  getConfiguration(): Record<string, unknown>;
  isReady(): boolean;
  cancelCurrentTask(): Promise<void>;
}
interface LsIntervention { action: string; detector: string; outcome: string; ok?: boolean; delivery?: string; message: string; event: number; ts?: number }
interface LsSnapshot { key: string; taskId: string; replay: boolean; interventions: LsIntervention[]; hostLabel: string }
interface LsApi { snapshots(): LsSnapshot[]; overall(): { hosts?: Array<{ hostId: string; label: string; state: string }> } }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) { console.log(`roo-e2e: gave up waiting for ${what} after ${timeoutMs} ms`); return undefined; }
    await sleep(100);
  }
}

suite(`real ${HOST_LABEL} (${ROO_ID}) with Loop Sentinel`, function () {
  this.timeout(240_000);
  const model = new FakeModel();
  let roo: RooApi;
  let ls: LsApi;
  const messages: Array<{ at: number; taskId: string; ts: number; type: string; say?: string; ask?: string; partial?: boolean; text?: string }> = [];
  const report: Record<string, unknown>[] = [];
  let baseUrl = "";

  suiteSetup(async () => {
    baseUrl = await model.start();
    const lsExt = vscode.extensions.getExtension<LsApi>("loop-sentinel.loop-sentinel");
    const rooExt = vscode.extensions.getExtension<RooApi>(ROO_ID);
    assert.ok(lsExt, "Loop Sentinel installed");
    assert.ok(rooExt, `${ROO_ID} installed`);
    ls = lsExt.isActive ? lsExt.exports : await lsExt.activate();
    roo = rooExt.isActive ? rooExt.exports : await rooExt.activate();
    roo.on("message", (p: unknown) => {
      const { taskId, message: m } = p as { taskId: string; message: { ts: number; type: string; say?: string; ask?: string; partial?: boolean; text?: string } };
      messages.push({ at: Date.now(), taskId, ts: m.ts, type: m.type, say: m.say, ask: m.ask, partial: m.partial, text: typeof m.text === "string" ? m.text.slice(0, 300) : undefined });
    });
    const watched = await waitFor("Loop Sentinel to watch the host", () => (ls.overall().hosts ?? []).find((h) => h.label === HOST_LABEL && h.state === "watching"), 30_000);
    assert.ok(watched, `Loop Sentinel watches ${HOST_LABEL}: ${JSON.stringify(ls.overall().hosts)}`);
    await vscode.commands.executeCommand("roo-cline.SidebarProvider.focus");
    assert.ok(await waitFor("Roo isReady()", () => roo.isReady(), 60_000), "Roo's chat view ready");
    const ws = vscode.workspace.workspaceFolders?.[0].uri.fsPath;
    assert.ok(ws, "a workspace folder");
    fs.mkdirSync(path.join(ws, "src"), { recursive: true });
    for (let i = 1; i <= 8; i++) fs.writeFileSync(path.join(ws, "src", `part${i}.js`), `exports.f${i} = (a) => a + ${i};\n`);
    fs.writeFileSync(path.join(ws, "README.md"), "# demo\nAdds numbers.\n");
  });

  suiteTeardown(async () => {
    await model.stop();
    if (ARTIFACTS) fs.writeFileSync(path.join(ARTIFACTS, `roo-e2e-${ROO_ID}.json`), JSON.stringify(report, null, 2));
  });

  async function run(name: string, opts: { mode: "code" | "architect"; prompt: string; done: (taskId: string) => boolean; timeoutMs: number }) {
    await roo.setConfiguration({
      apiProvider: "openai", openAiBaseUrl: baseUrl, openAiApiKey: "sk-fake", openAiModelId: "fake-loop-model", openAiStreamingEnabled: true,
      autoApprovalEnabled: true, alwaysAllowReadOnly: true, alwaysAllowReadOnlyOutsideWorkspace: true, alwaysAllowWrite: true,
      alwaysAllowExecute: true, allowedCommands: ["*"], terminalShellIntegrationDisabled: true, mode: opts.mode,
    });
    const settingsBefore = autoApproval();
    const started = Date.now();
    const taskId = await roo.startNewTask({ text: opts.prompt });
    await waitFor(`${name} to end`, () => opts.done(taskId), opts.timeoutMs);
    await sleep(1500); // late actions and their delivery settle
    const snap = ls.snapshots().find((s) => !s.replay && s.taskId === taskId);
    const interventions = snap?.interventions ?? [];
    const row = {
      scenario: name, host: HOST_LABEL, seconds: (Date.now() - started) / 1000, requests: model.requests.length,
      interventions: interventions.map((i) => ({ action: i.action, detector: i.detector, delivery: i.delivery, outcome: i.outcome })),
      toolCalls: toolCallsOf(taskId),
      ran: ranOf(taskId),
      requestsWithGuidance: model.requests.filter((r) => r.inputs.some((t) => t.includes("Loop Sentinel"))).map((r) => r.n),
      // When each request began and each intervention fired (ms after the task started): how many
      // requests a rung costs depends on how long its action takes against how fast Roo asks again.
      timeline: [
        ...model.requests.map((r) => ({ ms: r.at - started, request: r.n })),
        ...interventions.map((i) => ({ ms: (i.ts ?? 0) - started, action: i.action, event: i.event })),
      ].sort((a, b) => a.ms - b.ms),
    };
    console.log(`roo-e2e: ${JSON.stringify(row)}`);
    // The artifact keeps Roo's own account too (complete messages, in order), to read a regression from.
    report.push({ ...row, hostMessages: messages.filter((m) => m.taskId === taskId && m.partial !== true).map((m) => ({ ms: m.at - started, type: m.type, what: m.say ?? m.ask, text: m.text?.slice(0, 80) })) });
    return { taskId, interventions, requests: [...model.requests] as ModelRequest[], settingsBefore };
  }

  const completed = (taskId: string) => messages.some((m) => m.taskId === taskId && m.type === "ask" && m.ask === "completion_result" && m.partial !== true);
  const stopped = (taskId: string) => (ls.snapshots().find((s) => s.taskId === taskId)?.interventions ?? []).some((i) => i.action === "stop" && !/sending/.test(i.outcome));
  /** Calls the model made (each complete ask once; Roo sends some twice). */
  const toolCallsOf = (taskId: string) => new Set(messages.filter((m) => m.taskId === taskId && m.type === "ask" && (m.ask === "command" || m.ask === "tool") && m.partial !== true).map((m) => m.ts)).size;
  /** Commands that really ran: each has its output. */
  const ranOf = (taskId: string) => new Set(messages.filter((m) => m.taskId === taskId && m.type === "ask" && m.ask === "command_output").map((m) => m.ts)).size;
  /** The user's auto-approval settings, as Roo reports them. */
  const AUTO_APPROVAL_KEYS = ["autoApprovalEnabled", "alwaysAllowReadOnly", "alwaysAllowReadOnlyOutsideWorkspace", "alwaysAllowWrite", "alwaysAllowExecute", "allowedCommands", "deniedCommands", "alwaysAllowMcp", "alwaysAllowModeSwitch", "alwaysAllowSubtasks", "alwaysAllowFollowupQuestions"];
  const autoApproval = () => JSON.stringify(AUTO_APPROVAL_KEYS.map((k) => [k, roo.getConfiguration()[k] ?? null]));

  for (const files of [3, 8]) {
    test(`productive: ${files} reads of different files draw no intervention`, async () => {
      const list = Array.from({ length: files }, (_, i) => `src/part${i + 1}.js`);
      model.play({ kind: "reads", files: list });
      const r = await run(`productive-${files}`, { mode: "code", prompt: `Read ${list.join(", ")} and summarise them.`, done: completed, timeoutMs: 90_000 });
      assert.deepEqual(r.interventions.map((i) => `${i.action}/${i.detector}`), []);
      assert.equal(model.received("Loop Sentinel"), undefined, "the model never saw a word from Loop Sentinel");
      assert.equal(r.requests.length, files + 1);
    });
  }

  test("reasoning loop: aborted, and the model's next request carries the guidance", async () => {
    model.play({ kind: "reasoning-loop", maxCopies: 60, paragraph: "Let me think about this again. The user wants me to look at the project, so first I should check the folder structure, then decide which file matters most, and only after that write any code. I am not yet sure which file matters, so I should think about the folder structure again before I act." });
    const r = await run("reasoning", { mode: "code", prompt: "Look at this project and tell me what it does.", done: completed, timeoutMs: 120_000 });
    const abort = r.interventions.find((i) => i.action === "abort");
    assert.ok(abort, JSON.stringify(r.interventions));
    // Roo 3.52 does not close the provider's stream on cancel: the cancelled request streams on at the
    // provider (its tokens are spent, not saved). Recorded here as a figure, not asserted.
    console.log(`roo-e2e: cancelled stream closed by Roo: ${r.requests[0].closedEarly}; characters streamed in it: ${r.requests[0].sentChars}`);
    assert.ok(model.received(abort.message.slice(0, 60)), "guidance reached the model");
    assert.equal(abort.delivery, "delivered", abort.outcome);
    // The panel on the real Roo's task, in words; this picture is the one the README and walkthrough show.
    const key = ls.snapshots().find((s) => !s.replay && s.taskId === r.taskId)!.key;
    const rendered = nextRender(ls as unknown as LoopSentinelApi, (rep) => rep.selected === key && (rep.texts?.badges.length ?? 0) > 0);
    await vscode.commands.executeCommand("loopSentinel.showDiagnostics", key);
    const report = await rendered;
    assert.equal(report.texts!.badges[0], "Aborted a response", JSON.stringify(report.texts!.badges));
    await screenshot(`panel-real-roo-reasoning-${HOST_LABEL.replace(/\W+/g, "-").toLowerCase()}.png`);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  for (const [name, mode, command, maxCalls, maxRequests] of [
    ["tool loop (Code mode)", "code", "ls", 7, 10],
    ["slow tool loop (Code mode, sleep 2; ls)", "code", "sleep 2; ls", 7, 10],
    // Architect mode: Roo refuses the command itself, before its ask completes, and asks the model again
    // at once. Bound held at 10: a refusal that waited 5 s for that ask cost 13-16 requests.
    ["tool loop Roo itself refuses (Architect mode)", "architect", "ls", Infinity, 10],
  ] as const) {
    test(`${name}: stopped within its thresholds; every warning reached the model or is reported undelivered; auto-approval settings as they were`, async () => {
      model.play({ kind: "tool-loop", command });
      const r = await run(name, { mode, prompt: "List the files in this project.", done: stopped, timeoutMs: 150_000 });
      // Held while the loop went on, then put back: exactly what the user had.
      const restored = await waitFor("auto-approval settings restored", () => autoApproval() === r.settingsBefore, 10_000);
      assert.ok(restored, `auto-approval settings after: ${autoApproval()}, before: ${r.settingsBefore}`);
      const stop = r.interventions.find((i) => i.action === "stop");
      assert.ok(stop, `stopped: ${JSON.stringify(r.interventions.map((i) => i.action))} after ${r.requests.length} requests`);
      assert.ok(r.requests.length <= maxRequests, `${r.requests.length} requests (at most ${maxRequests})`);
      if (Number.isFinite(maxCalls)) assert.ok(toolCallsOf(r.taskId) <= maxCalls, `${toolCallsOf(r.taskId)} calls ran`);
      for (const iv of r.interventions.filter((i) => i.action === "warn" || i.action === "block")) {
        // Roo hands a refusal over inside JSON (`{"status":"denied","feedback":…}`): quotes arrive escaped.
        const head = iv.message.slice(0, 60);
        const arrived = !!model.received(head) || !!model.received(JSON.stringify(head).slice(1, -1));
        assert.ok(arrived ? iv.delivery !== "undelivered" : iv.delivery === "undelivered" && iv.ok === false,
          `${iv.action}: arrived=${arrived}, reported ${iv.delivery}: ${iv.outcome}`);
      }
      if (mode === "code") assert.ok(model.received("Loop Sentinel"), "some guidance reached the model before the stop");
      if (mode === "code" && command === "ls") {
        // The ladder on the call it names: warned at the 3rd, the 5th refused before it ran, stopped by the 7th.
        assert.deepEqual(r.interventions.map((i) => i.action).slice(0, 2), ["warn", "block"], JSON.stringify(r.interventions));
        assert.equal(ranOf(r.taskId), 4, `${ranOf(r.taskId)} commands ran (the 5th should have been refused)`);
        assert.ok(model.received("Loop Sentinel refused this call"), "the refusal reached the model as the call's answer");
        assert.ok(toolCallsOf(r.taskId) <= 7, `${toolCallsOf(r.taskId)} calls made before the stop`);
      }
    });
  }
});
