/**
 * End-to-end: the real Cline CLI (npm cline@2.18.0 = classic core, cline@3.0.65 = SDK core)
 * against scripted fake models, guarded live by `loop-sentinel watch` on its data folder.
 * Run with `npm run test:e2e:cline` (needs `npm run build` first; installs the CLIs on first use).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { FakeModelServer } from "./fakeModel";
import { CLI_VERSIONS, describeRun, ensureCli, REPO, RUNS_ROOT, runScenario, type CliKind, type RunResult, type WatchRecord } from "./harness";

const interventions = (r: RunResult): WatchRecord[] => r.watch.filter((w) => w.type === "intervention");

/** Command calls in the task file up to and including message `upTo`. */
function commandCallsUpTo(r: RunResult, upTo: number): number {
  let n = 0;
  r.messages.slice(0, upTo + 1).forEach((m) => {
    if (r.kind === "classic") { if ((m.say === "command" || m.ask === "command") && m.partial !== true) n++; return; }
    if (m.role === "assistant" && Array.isArray(m.content)) for (const b of m.content as Record<string, unknown>[]) if (b.type === "tool_use") n++;
  });
  return n;
}

describe(`Cline CLI end to end (cline@${CLI_VERSIONS.classic}, cline@${CLI_VERSIONS.v4})`, function () {
  this.timeout(600_000);
  const server = new FakeModelServer({ chunkDelayMs: 15 });
  let port = 0;

  before(function () {
    if (!fs.existsSync(path.join(REPO, "dist", "cli.js"))) throw new Error("dist/cli.js missing: run `npm run build` first");
    fs.rmSync(RUNS_ROOT, { recursive: true, force: true }); // earlier runs' data folders
    for (const kind of Object.keys(CLI_VERSIONS) as CliKind[]) ensureCli(kind);
  });
  before(async () => { port = await server.listen(); });
  after(async () => { await server.close(); });

  it("classic: flags the reasoning loop while Cline is still streaming the partial reasoning message", async () => {
    const r = await runScenario({ kind: "classic", scenario: "reasoning-loop", server, port, interrupt: false, timeoutMs: 120_000 });
    const first = interventions(r)[0];
    assert.ok(first, `no intervention: ${describeRun(r)}`);
    assert.equal(first.source?.kind, "say:reasoning", describeRun(r));
    assert.equal(first.source?.partial, true, `flagged only after the reasoning finished: ${describeRun(r)}`);
    const reasoning = r.messages.find((m) => m.say === "reasoning");
    const finalLength = typeof reasoning?.text === "string" ? reasoning.text.length : 0;
    assert.ok(first.source!.chars < finalLength / 2, `flagged at ${first.source!.chars} of ${finalLength} characters: ${describeRun(r)}`);
  });

  it("v4: flags the reasoning loop once the response is written (the SDK core saves per response, not per chunk)", async () => {
    const r = await runScenario({ kind: "v4", scenario: "reasoning-loop", server, port, interrupt: false, timeoutMs: 120_000 });
    const first = interventions(r)[0];
    assert.ok(first, `no intervention: ${describeRun(r)}`);
    assert.equal(first.source?.kind, "assistant", describeRun(r));
    assert.equal(r.messages[first.source!.index]?.role, "assistant", describeRun(r));
  });

  for (const kind of ["classic", "v4"] as CliKind[]) {
    it(`${kind}: flags the repeated command by its third call, before Cline's own guard at five`, async () => {
      const r = await runScenario({ kind, scenario: "repeat-command", server, port, interrupt: false, timeoutMs: 120_000 });
      const first = interventions(r)[0];
      assert.ok(first, `no intervention: ${describeRun(r)}`);
      assert.equal(first.detector, "tool-repeat", describeRun(r));
      assert.equal(commandCallsUpTo(r, first.source!.index), 3, `first flagged at another call: ${describeRun(r)}`);
      // Cline's own guard then ends the run at the fifth identical call.
      assert.equal(commandCallsUpTo(r, r.messages.length - 1), 5, describeRun(r));
      assert.equal(r.timedOut, false, describeRun(r));
    });
  }

  for (const kind of ["classic", "v4"] as CliKind[]) {
    it(`${kind}: the guard interrupts the varied loop that Cline's exact-repeat guard never stops`, async () => {
      const r = await runScenario({ kind, scenario: "varied-loop", server, port, interrupt: true, timeoutMs: kind === "classic" ? 240_000 : 120_000 });
      assert.equal(r.timedOut, false, `the loop ran until the test's time limit: ${describeRun(r)}`);
      assert.ok(interventions(r).some((w) => w.action === "stop"), describeRun(r));
      assert.ok(r.watch.some((w) => w.type === "interrupt"), describeRun(r));
      assert.equal(r.watchExitCode, 3, describeRun(r));
      if (kind === "v4") assert.equal(r.manifest?.status, "cancelled", describeRun(r));
      else assert.ok(!r.messages.some((m) => m.say === "completion_result"), describeRun(r));
    });
  }

  for (const kind of ["classic", "v4"] as CliKind[]) {
    it(`${kind}: leaves a productive run alone`, async () => {
      const r = await runScenario({ kind, scenario: "productive", server, port, interrupt: true, timeoutMs: 120_000 });
      assert.deepEqual(interventions(r).map((w) => `${w.action} ${w.detector}: ${w.summary}`), [], describeRun(r));
      assert.equal(r.timedOut, false, describeRun(r));
      assert.equal(r.watchExitCode, 0, describeRun(r));
      if (kind === "v4") assert.equal(r.manifest?.status, "completed", describeRun(r));
      else assert.ok(r.messages.some((m) => m.say === "completion_result"), describeRun(r));
      assert.ok(r.requests >= 5, `the productive script has five steps: ${describeRun(r)}`);
    });
  }
});

/** Tool calls of a v4 session and whether each got a result (a refused call never runs). */
function v4Calls(r: RunResult): { id: string; command: string; ran: boolean }[] {
  const results = new Set<string>();
  const calls: { id: string; command: string }[] = [];
  for (const m of r.messages) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Record<string, unknown>[]) {
      if (b.type === "tool_use") calls.push({ id: String(b.id), command: JSON.stringify((b.input as Record<string, unknown>)?.commands) });
      if (b.type === "tool_result") results.add(String(b.tool_use_id));
    }
  }
  return calls.map((c) => ({ ...c, ran: results.has(c.id) }));
}

/** The hook's answers other than "let it through". */
const hookRecords = (r: RunResult): WatchRecord[] => r.watch.filter((w) => w.type === "hook" && w.action !== "allow");

describe(`Cline CLI end to end with Loop Sentinel's PreToolUse hook (cline@${CLI_VERSIONS.v4})`, function () {
  this.timeout(300_000);
  const server = new FakeModelServer({ chunkDelayMs: 10 });
  let port = 0;

  before(function () {
    if (!fs.existsSync(path.join(REPO, "dist", "cline-hook.js"))) throw new Error("dist/cline-hook.js missing: run `npm run build` first");
    ensureCli("v4");
  });
  before(async () => { port = await server.listen(); });
  after(async () => { await server.close(); });

  it("the model receives the guidance with the third identical call's result, and stops repeating", async () => {
    const r = await runScenario({ kind: "v4", scenario: "repeat-until-guided", server, port, interrupt: false, hook: true, timeoutMs: 90_000 });
    const guided = r.requestLog.findIndex((q) => q.hookContexts.some((c) => c.startsWith("Loop Sentinel")));
    assert.equal(guided, 3, `guidance first in request ${guided + 1}: ${describeRun(r)}`);
    assert.match(r.requestLog[3].hookContexts.join("\n"), /run_commands/, describeRun(r));
    assert.deepEqual(hookRecords(r).map((h) => `${h.action} ${h.toolCallId}`), ["warn call_3"], describeRun(r));
    assert.equal(v4Calls(r).length, 3, describeRun(r));
    assert.equal(r.manifest?.status, "completed", describeRun(r));
    assert.equal(r.requests, 4, describeRun(r));
  });

  it("a loop that ignores the guidance is refused at the block rung, before the stop rung (Cline's own guard never stops it)", async () => {
    const r = await runScenario({ kind: "v4", scenario: "varied-loop", server, port, interrupt: false, hook: true, timeoutMs: 90_000 });
    assert.equal(r.timedOut, false, describeRun(r));
    const hooks = hookRecords(r);
    assert.deepEqual(hooks.map((h) => h.action), ["warn", "block"], describeRun(r));
    const calls = v4Calls(r);
    const refused = calls.find((c) => c.id === hooks[1].toolCallId);
    assert.ok(refused, describeRun(r));
    assert.equal(refused!.ran, false, `the refused call ran: ${describeRun(r)}`);
    assert.deepEqual(calls.filter((c) => !c.ran).map((c) => c.id), [refused!.id], describeRun(r));
    // The model had the warning before the refusal; nothing reached the stop rung.
    assert.ok(r.requestLog.some((q) => q.hookContexts.some((c) => c.startsWith("Loop Sentinel"))), describeRun(r));
    assert.ok(!interventions(r).some((w) => w.action === "stop"), describeRun(r));
    assert.equal(r.manifest?.status, "cancelled", describeRun(r));
  });

  it("leaves a productive run alone: every call allowed, nothing added to the model's requests", async () => {
    const r = await runScenario({ kind: "v4", scenario: "productive", server, port, interrupt: false, hook: true, timeoutMs: 90_000 });
    assert.deepEqual(hookRecords(r), [], describeRun(r));
    assert.deepEqual(r.requestLog.flatMap((q) => q.hookContexts), [], describeRun(r));
    assert.equal(r.manifest?.status, "completed", describeRun(r));
    assert.ok(v4Calls(r).every((c) => c.ran), describeRun(r));
  });

  it("classic core (cline@" + CLI_VERSIONS.classic + "): the guidance reaches the model with the third call's result, and it stops repeating", async () => {
    ensureCli("classic");
    const r = await runScenario({ kind: "classic", scenario: "repeat-until-guided", server, port, interrupt: false, hook: true, timeoutMs: 120_000 });
    const guided = r.requestLog.findIndex((q) => q.hookContexts.some((c) => c.startsWith("Loop Sentinel")));
    assert.equal(guided, 3, `guidance first in request ${guided + 1}: ${describeRun(r)}`);
    assert.deepEqual(hookRecords(r).map((h) => h.action), ["warn"], describeRun(r));
    assert.equal(r.messages.filter((m) => m.say === "command").length, 3, describeRun(r));
    assert.ok(r.messages.some((m) => m.say === "completion_result"), describeRun(r));
  });

  it("classic core (cline@" + CLI_VERSIONS.classic + "): after the hook refuses the 5th identical call, the run that waits at its resume question is ended by watch --interrupt", async function () {
    // Five requests of the classic CLI, then the 10 s bound: minutes on a loaded machine.
    this.timeout(900_000);
    ensureCli("classic");
    const r = await runScenario({ kind: "classic", scenario: "repeat-command", server, port, interrupt: true, hook: true, timeoutMs: 600_000 });
    console.log(`    ${describeRun(r)}`);
    assert.equal(r.timedOut, false, `the run waited until the test's limit: ${describeRun(r)}`);
    assert.deepEqual(hookRecords(r).map((h) => h.action), ["warn", "block"], describeRun(r));
    const interrupt = r.watch.find((w) => w.type === "interrupt");
    assert.ok(interrupt, describeRun(r));
    assert.match(String((interrupt as { reason?: unknown }).reason), /refused a call .* no call came since/, describeRun(r));
    assert.equal(r.watchExitCode, 3, describeRun(r));
    assert.ok(!interventions(r).some((w) => w.action === "stop"), "ended without the stop rung");
    // Five calls asked for, four ran: the refused one never did; Cline then asked to resume.
    assert.equal(r.messages.filter((m) => m.say === "command").length, 5, describeRun(r));
    assert.equal(r.messages.filter((m) => m.ask === "command_output").length, 4, describeRun(r));
    assert.ok(r.messages.some((m) => m.ask === "resume_task"), describeRun(r));
  });

  it("with Loop Sentinel absent, the installed hook lets every call through at once", async () => {
    const r = await runScenario({ kind: "v4", scenario: "repeat-command", server, port, interrupt: false, hook: true, noGuard: true, timeoutMs: 90_000 });
    assert.deepEqual(r.requestLog.flatMap((q) => q.hookContexts), [], describeRun(r));
    // Cline's own guard ends it at the fifth identical call, as without the hook.
    assert.equal(v4Calls(r).length, 5, describeRun(r));
    assert.equal(r.timedOut, false, describeRun(r));
  });
});
