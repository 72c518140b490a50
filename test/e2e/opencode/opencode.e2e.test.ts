/**
 * `npm run test:e2e:opencode`: the Loop Sentinel plugin inside the real opencode and Kilo CLI
 * servers from npm, against the fake model. A tool loop is refused and then stopped on the same
 * ladder as everywhere (a failing build; a stubborn identical listing: warning with the 3rd result,
 * the 5th call refused, the run ended by the 7th, counted in calls that really ran), a reasoning
 * loop is aborted and the guidance is the model's next user message, a productive session is left
 * alone, and warn-only mode sends the agent nothing. Judged from what the fake model was sent.
 * RECORD_OPENCODE_FIXTURES=1 keeps the hook calls each run received under test/fixtures/opencode-plugin/.
 */
import * as assert from "node:assert/strict";
import { E2eFakeModel } from "./fakeModel";
import { AGENTS, ensureAgent, keepFixture, runScenario, type AgentName, type Run } from "./harness";

const REFUSED = "Loop Sentinel refused this call";
const ABORTED = "Loop Sentinel stopped your last response";
const STOPPED = "Loop Sentinel stopped the task";

const WARNING = "Loop Sentinel:";

/** The tool results the model read last, in call order. */
function toolResults(model: E2eFakeModel): string[] {
  const main = model.main();
  return main.length ? main[main.length - 1].messages.filter((m) => m.role === "tool").map((m) => m.content) : [];
}

/** Calls the agent made, as the plugin saw them (ran or refused). */
function calls(run: Run): number {
  return run.report.filter((r) => r.type === "event" && (r.event as { t?: string }).t === "tool_call").length;
}

/** Per call: ran (r), ran and carried a warning (w), refused (x); then the interventions. */
function ladderOf(run: Run, model: E2eFakeModel): string {
  const marks = toolResults(model).map((t) => (t.includes(REFUSED) ? "x" : t.includes(WARNING) ? "w" : "r")).join("");
  return `calls ${calls(run)}, results read ${marks}, interventions ${records(run, "intervention").map((r) => r.action).join(",")}`;
}

function records(run: Run, type: string): Record<string, unknown>[] {
  return run.report.filter((r) => r.type === type);
}

function describeRun(run: Run, model: E2eFakeModel): string {
  const main = model.main().map((r) => `${r.step}${r.cut ? "✂" : ""}`).join(",");
  const events = run.report.filter((r) => r.type === "event").length;
  return `${run.agent} ${run.scenario}: ${run.ms} ms, model requests ${main}; ${events} events reported; report ${run.report.filter((r) => r.type !== "event").map((r) => `${r.type}${r.action ? ":" + String(r.action) : ""}`).join(" ")}`;
}

for (const agent of Object.keys(AGENTS) as AgentName[]) {
  describe(`OpenCode plugin in the real ${agent} ${AGENTS[agent].version} server`, function () {
    this.timeout(900_000);
    const model = new E2eFakeModel();
    let port = 0;

    before(async function () {
      try { ensureAgent(agent); } catch (err) {
        // Named in the output: an agent whose binary the registry does not carry cannot be tested here.
        console.log(`  ${agent}: could not install ${AGENTS[agent].pkg}@${AGENTS[agent].version}: ${(err as Error).message}`);
        this.skip();
      }
      port = await model.listen();
    });
    after(() => model.close());

    it("warns with the 3rd failed build's own result, refuses the 4th, then stops the session; the model reads the reasons", async () => {
      const run = await runScenario({ agent, scenario: "build-loop", model, port });
      console.log(`    ${describeRun(run, model)}; ${ladderOf(run, model)}`);
      keepFixture(run, "build-loop");
      assert.equal(run.timedOut, false, "the session should settle");
      const results = toolResults(model);
      assert.ok(results.length >= 4, `the 4th call was made: ${results.length}`);
      assert.deepEqual(results.slice(0, 3).map((t) => t.includes(WARNING)), [false, false, true], "the warning goes out with the 3rd failure's own result");
      assert.ok(results.slice(0, 3).every((t) => !t.includes(REFUSED)), "the first three builds ran");
      assert.ok(results[3].includes(REFUSED), "the 4th build is refused (tool-failure's block rung)");
      assert.ok(calls(run) <= 7, `the run ended by the 7th call: ${calls(run)}`);
      assert.ok(records(run, "outcome").some((r) => r.action === "block" && r.ok === true), "block carried out");
      assert.ok(records(run, "outcome").some((r) => r.action === "stop" && r.ok === true), "stop carried out");
      // The stop's reason is left for the user (noReply): the model is not asked again after it.
      assert.ok(!model.main().some((r) => r.messages.some((m) => m.role === "user" && m.content.includes(STOPPED))), "a stop does not start another response");
    });

    it("a stubborn identical listing: warned with the 3rd result, the 5th call refused, the run ended at the 7th", async () => {
      const run = await runScenario({ agent, scenario: "ls-loop", model, port });
      console.log(`    ${describeRun(run, model)}; ${ladderOf(run, model)}`);
      keepFixture(run, "ls-loop");
      assert.equal(run.timedOut, false, "the session should settle");
      const results = toolResults(model);
      const ran = results.map((t) => !t.includes(REFUSED));
      // The results the model read: calls 1-4 ran (the 3rd's result carries the warning), 5 and 6 refused.
      assert.deepEqual(results.map((t) => t.includes(WARNING)), [false, false, true, false, false, false], results.join("\n---\n"));
      assert.deepEqual(ran, [true, true, true, true, false, false], "calls 1-4 ran, 5 and 6 were refused");
      assert.equal(calls(run), 7, "the 7th call was the last: refused and the session stopped");
      assert.deepEqual(records(run, "intervention").map((r) => r.action), ["warn", "block", "block", "stop"]);
      assert.ok(records(run, "outcome").some((r) => r.action === "stop" && r.ok === true), "stop carried out");
      assert.equal(model.main().length, 7, "no request after the stopped 7th call");
    });

    it("aborts a reasoning loop mid-stream and the guidance is the model's next user message", async () => {
      const run = await runScenario({ agent, scenario: "reasoning-loop", model, port });
      console.log(`    ${describeRun(run, model)}`);
      keepFixture(run, "reasoning-loop");
      assert.equal(run.timedOut, false, "the session should settle");
      const main = model.main();
      assert.ok(main[0].cut, "the looping response was cut before its end");
      const guided = main.slice(1).find((r) => r.messages.filter((m) => m.role === "user").pop()?.content.includes(ABORTED));
      assert.ok(guided, "a later request ends with the guidance as the user's message");
      assert.equal(guided!.cut, false, "the guided response ran to its end");
      assert.ok(records(run, "outcome").some((r) => r.action === "abort" && r.ok === true), "abort carried out");
      assert.equal(records(run, "intervention").filter((r) => r.action === "abort").length, 1, "one abort, no repeat on the guided response");
    });

    it("leaves a productive session alone (the plugin installed in the project's folder)", async () => {
      const run = await runScenario({ agent, scenario: "productive", model, port, guard: "project-plugin" });
      console.log(`    ${describeRun(run, model)}`);
      keepFixture(run, "productive");
      assert.equal(run.timedOut, false, "the session should settle");
      assert.deepEqual(records(run, "intervention"), [], "no intervention");
      assert.ok(records(run, "started").length >= 1, "the plugin, loaded from the project's folder, followed the session");
      assert.equal(model.main().length, 6, "five steps and the final answer");
      assert.ok(!model.main().some((r) => r.messages.some((m) => m.content.includes("Loop Sentinel"))), "nothing of ours reached the model");
    });

    it("watch --opencode, from outside the server, aborts the reasoning loop over HTTP and the guidance reaches the model", async () => {
      const run = await runScenario({ agent, scenario: "reasoning-loop", model, port, name: "reasoning-loop-watch", guard: "watch" });
      console.log(`    ${describeRun(run, model)}; watch printed ${run.watchOutput.map((r) => `${r.type}${r.action ? ":" + String(r.action) : ""}`).join(" ")}`);
      assert.equal(run.timedOut, false, "the session should settle");
      assert.deepEqual(run.report, [], "no plugin installed");
      const main = model.main();
      assert.ok(main[0].cut, "the looping response was cut before its end");
      assert.ok(main.slice(1).some((r) => r.messages.filter((m) => m.role === "user").pop()?.content.includes(ABORTED)), "the guidance is the model's next user message");
      assert.ok(run.watchOutput.some((r) => r.type === "outcome" && r.action === "abort" && r.ok === true), "watch reports the abort done");
    });

    it("a provider pointed at Loop Sentinel's stream guard, with the plugin in the server: one finding, one intervention (the plugin aborts, the guard passes the session through)", async () => {
      const run = await runScenario({ agent, scenario: "reasoning-loop", model, port, name: "reasoning-loop-proxied", proxied: true });
      console.log(`    ${describeRun(run, model)}; guard: ${run.guardRecords.map((r) => r.type).join(" ")}`);
      assert.equal(run.timedOut, false, "the session should settle");
      const main = model.main();
      assert.ok(main[0].cut, "the looping response was cut before its end");
      assert.equal(records(run, "intervention").filter((r) => r.action === "abort").length, 1, "the plugin aborted once");
      assert.ok(records(run, "outcome").some((r) => r.action === "abort" && r.ok === true), "abort carried out");
      assert.deepEqual(run.guardRecords.filter((r) => r.type !== "left-to-plugin").map((r) => r.type), [], "the guard did nothing of its own");
      assert.ok(run.guardRecords.some((r) => r.type === "left-to-plugin"), "the guard saw the plugin's session");
      const notes = main.flatMap((r) => r.messages.filter((m) => m.content.includes(ABORTED) || m.content.includes("Loop Sentinel stopped this response")));
      assert.equal(new Set(notes.map((m) => m.content)).size, 1, `one guidance, not two: ${notes.map((m) => m.content.slice(0, 80)).join(" | ")}`);
      assert.ok(main.slice(1).some((r) => r.messages.filter((m) => m.role === "user").pop()?.content.includes(ABORTED)), "the plugin's guidance is the model's next user message");
    });

    it("the same provider pointed at the stream guard without the plugin: the guard cuts the loop itself", async () => {
      const run = await runScenario({ agent, scenario: "reasoning-loop", model, port, name: "reasoning-loop-proxy-alone", proxied: true, guard: "none" });
      console.log(`    ${describeRun(run, model)}; guard: ${run.guardRecords.map((r) => r.type === "intervention" || r.type === "cut" ? `${r.type}:${r.action}` : r.type).join(" ")}`);
      assert.equal(run.timedOut, false, "the session should settle");
      assert.deepEqual(run.report, [], "no plugin installed");
      assert.ok(run.guardRecords.some((r) => r.type === "cut" && r.action === "abort"), "the guard cut the answer");
      assert.ok(!run.guardRecords.some((r) => r.type === "left-to-plugin"));
      assert.ok(model.main()[0].cut, "the upstream request was ended");
    });

    it("in warn-only mode reports the loop and sends the agent nothing", async () => {
      const run = await runScenario({ agent, scenario: "build-loop", model, port, name: "build-loop-warn-only", settings: { "loopSentinel.mode": "warnOnly" } });
      console.log(`    ${describeRun(run, model)}`);
      assert.equal(run.timedOut, false, "the session should settle");
      assert.ok(records(run, "intervention").length > 0 && records(run, "intervention").every((r) => r.action === "warn"), "warnings only");
      assert.ok(!model.main().some((r) => r.messages.some((m) => m.content.includes("Loop Sentinel"))), "nothing of ours reached the model");
      assert.equal(model.main().length, 8, "all seven builds and the final answer");
    });
  });
}
