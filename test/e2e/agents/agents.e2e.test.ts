/**
 * Loop Sentinel's hook in the real Claude Code 2.1.332, Copilot CLI 1.0.102, Codex 0.171.0, Gemini
 * CLI 0.61.0 and Qwen Code 0.24.4 (from npm, offline, against the fake model): an identical-call
 * loop gets guidance, then refusals, then the end of the run (Claude, Copilot, Gemini) or refusals
 * to the end (Codex, Qwen); a reasoning loop in the agent's own session file is acted on at the
 * next tool call; a productive run
 * is untouched; warn-only refuses nothing; with `loop-sentinel watch --agents` running it answers
 * the hook; with the hook absent or broken every call passes. What
 * the model received is read from the next request the fake model got.
 * Run: `npm run test:e2e:agents` (AGENTS=claude,copilot to pick).
 */
import * as assert from "node:assert/strict";
import { runAgent, type Agent, type RunResult } from "./harness";
import type { Step } from "./fakeModel";
import { PRODUCTIVE } from "./scenarios";

const AGENTS = (process.env.AGENTS ?? "claude,copilot,codex,gemini,qwen").split(",").filter(Boolean) as Agent[];

/**
 * Gemini CLI and Qwen Code end a turn themselves at the 5th call with byte-identical arguments,
 * before a hook sees it; their loop repeats the command with a description that differs each
 * time (a field Loop Sentinel sets aside), as models do, so the loop reaches the hooks.
 */
const OWN_GUARD: ReadonlySet<Agent> = new Set(["gemini", "qwen"]);
/** Agents that no hook answer can stop: after the stop, every call is refused. */
const NO_END: ReadonlySet<Agent> = new Set(["codex", "qwen"]);

const repeat = (n: number, agent: Agent): Step[] => Array.from({ length: n }, (_, i) => ({
  text: `Listing the folder (${i + 1}).`,
  call: { kind: "shell", command: "ls", ...(OWN_GUARD.has(agent) ? { description: `List the folder, try ${i + 1}` } : {}) },
}));

const LOOP_THOUGHT =
  "Wait, maybe I should double-check whether the test file really exists before I change anything. " +
  "Let me think about it again from the start, because I want to be completely sure. ";


function guidanceAt(r: RunResult): number[] { return r.model.guided().map((q) => q.n); }
function refusalsAt(r: RunResult): number[] { return r.model.requests.filter((q) => q.evidence.some((e) => /refused|stopped/i.test(e))).map((q) => q.n); }
function describe_(r: RunResult): string {
  return `requests ${r.model.requests.length}, calls the hook counted ${r.hookCalls}, Loop Sentinel text in ${JSON.stringify(guidanceAt(r))}, refusals in ${JSON.stringify(refusalsAt(r))}; exit ${r.code}; run folder ${r.dir}\n` +
    r.model.guided().map((q) => `  #${q.n}: ${q.evidence.map((e) => e.slice(0, 200)).join(" | ")}`).join("\n");
}

for (const agent of AGENTS) {
  describe(`${agent}: Loop Sentinel's hook in the real CLI`, function () {
    this.timeout(600_000);

    it("an identical-call loop gets guidance, then refusals, then the end of the run (Codex: refusals to the end)", async () => {
      // Qwen Code sometimes loses a command's output under load ("Output: (empty)"): a result that
      // differs restarts the identical run, so its loop gets room for that.
      const r = await runAgent(agent, "identical-loop", repeat(agent === "qwen" ? 16 : 12, agent));
      const info = describe_(r);
      console.log(`      ${info}`);
      const guided = guidanceAt(r);
      const refused = refusalsAt(r);
      assert.ok(guided.length > 0, `no Loop Sentinel text reached the model: ${info}`);
      assert.ok(refused.length > 0, `no refusal reached the model: ${info}`);
      assert.ok(guided[0] < refused[0], `guidance came first: ${info}`);
      if (NO_END.has(agent)) {
        // No hook output ends a Codex or Qwen Code run: every call after the stop is refused, saying so, until the model gives up.
        const stopped = r.model.requests.filter((q) => q.evidence.some((e) => /stopped this run/.test(e))).map((q) => q.n);
        assert.ok(stopped.length > 0, `the stop was said: ${info}`);
        assert.ok(r.model.requests.slice(stopped[0] - 1).every((q) => q.evidence.length > 0 || !q.reply), `every call after the stop was refused: ${info}`);
      } else {
        // The stop ends the run: the model is not asked again after the loop's last refused call.
        assert.ok(r.model.requests.length < 12, `the run ended before the model's script did: ${info}`);
        assert.equal(r.model.requests[r.model.requests.length - 1].reply?.tool !== undefined, true, `the last request's call was the one the stop refused: ${info}`);
      }
    });

    {
      // Claude's transcript, Codex's rollout file, Copilot's events.jsonl, Gemini's and Qwen's chat files: each is read by the hook.
      it("a reasoning loop in the agent's session file is acted on at the next tool call", async () => {
        const steps: Step[] = [
          { thinking: LOOP_THOUGHT.repeat(40), text: "Let me look.", call: { kind: "shell", command: "ls" } },
          { text: "Reading the test.", call: { kind: "read", path: "test.js" } },
          { text: "Reading the code.", call: { kind: "read", path: "calc.js" } },
          { text: "Running it.", call: { kind: "shell", command: "node test.js" } },
          { text: "Done." },
        ];
        const r = await runAgent(agent, "reasoning-loop", steps);
        const info = describe_(r);
        console.log(`      ${info}`);
        const guided = guidanceAt(r);
        assert.ok(guided.length > 0 && guided[0] <= 3, `the loop in the thinking reached the model within two calls: ${info}`);
      });
    }

    it("a productive run of eleven varied calls (re-reads after edits, tests after edits) is untouched", async () => {
      const r = await runAgent(agent, "productive", PRODUCTIVE);
      const info = describe_(r);
      console.log(`      ${info}`);
      assert.deepEqual(guidanceAt(r), [], `no Loop Sentinel text: ${info}`);
      assert.equal(r.model.requests.length, PRODUCTIVE.length, `every step ran: ${info}`);
      assert.ok(r.hookCalls >= PRODUCTIVE.length - 1, `the hook saw every call (${r.hookCalls}): ${info}`);
    });

    it("warn-only: guidance reaches the model, no call is refused and the run is not ended", async () => {
      const r = await runAgent(agent, "warn-only", repeat(9, agent), { settings: { mode: "warnOnly" } });
      const info = describe_(r);
      console.log(`      ${info}`);
      assert.ok(guidanceAt(r).length > 0, `guidance arrived: ${info}`);
      assert.deepEqual(refusalsAt(r), [], `nothing refused: ${info}`);
      assert.equal(r.model.requests.length, 10, `every call ran: ${info}`);
    });

    it("with `loop-sentinel watch --agents` running, it answers the hook: guidance, then refusals; the hook keeps no state of its own", async () => {
      const r = await runAgent(agent, "watched-loop", repeat(agent === "qwen" ? 16 : 12, agent), { watch: true });
      const info = describe_(r);
      console.log(`      ${info}`);
      const guided = guidanceAt(r);
      const refused = refusalsAt(r);
      assert.ok(guided.length > 0 && refused.length > 0 && guided[0] < refused[0], `guidance, then refusals: ${info}`);
      assert.equal(r.hookCalls, 0, `the hook decided nothing alone: ${info}`);
      const mine = r.watched.filter((w) => typeof w.taskId === "string" && w.taskId.startsWith(`${agent}:`));
      assert.ok(mine.some((w) => w.type === "intervention" && w.action === "block"), `watch saw the session and its refusals: ${JSON.stringify(r.watched).slice(0, 600)}`);
      assert.ok(mine.some((w) => w.type === "hook" && w.point === "post"), `watch answered the calls' results too: ${info}`);
    });

    for (const damage of ["absent", "broken"] as const) {
      it(`with Loop Sentinel's hook ${damage}, every call passes`, async () => {
        const r = await runAgent(agent, `hook-${damage}`, repeat(9, agent), { damage });
        const info = describe_(r);
        console.log(`      ${info}`);
        assert.deepEqual(guidanceAt(r), [], `no Loop Sentinel text: ${info}`);
        assert.equal(r.model.requests.length, 10, `every call ran: ${info}`);
      });
    }
  });
}
