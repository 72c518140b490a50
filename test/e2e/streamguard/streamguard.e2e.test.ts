/**
 * The stream guard in front of the real Claude Code 2.1.332, Copilot CLI 1.0.102, Codex 0.171.0
 * and Gemini CLI 0.61.0, through `loop-sentinel run` and through `proxy` (then over https), against
 * a fake provider that loops (test/fakeLoopingUpstream.ts), offline: the loop is cut before its
 * 6th copy, the upstream request
 * is ended, the guidance reaches the model in the next request with no retry of the looping one,
 * and the CLI ends normally; a cut thinking block is not sent back; a second loop is stopped by the
 * guard's own answer; a productive stream is untouched.
 * Run: `npm run test:e2e:streamguard` (STREAMGUARD_AGENTS=claude,copilot to pick; all four by default).
 */
import * as assert from "node:assert/strict";
import { PARAGRAPH, FINAL, carriesGuidance } from "../../fakeLoopingUpstream";
import { runGuarded, type Agent, type GuardedRun } from "./harness";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { runNice } from "../../niceRun";
import { LoopingUpstream } from "../../fakeLoopingUpstream";
import { ensureCli } from "../agents/harness";
import { StreamGuardHost } from "../../../src/hosts/streamGuard/host";
import { SessionManager } from "../../../src/extension/sessionManager";

const AGENTS = (process.env.STREAMGUARD_AGENTS ?? "claude,copilot,codex,gemini").split(",").filter(Boolean) as Agent[];
const PRODUCTIVE = fs.readFileSync(path.resolve(__dirname, "../../../../test/fixtures/stream-guard/productive.txt"), "utf8");

function describeRun(r: GuardedRun): string {
  return `exit ${r.code} in ${r.ms} ms; requests: ${r.up.requests.map((q) => `#${q.n} ${q.api ?? q.path} ${q.answer}${q.refused ? " REFUSED" : ""}${q.clientGone ? " cut" : ""}`).join(", ")}\n${r.stderr.slice(-1500)}`;
}

/** Tool calls that ran: the results the last request to the provider carries (each request carries the whole conversation). */
function resultsRun(r: GuardedRun): number {
  const main = r.up.main();
  const last = JSON.stringify(main[main.length - 1]?.body ?? {});
  return (last.match(/"(tool_use_id|tool_call_id)":|"type":"function_call_output"|"functionResponse":/g) ?? []).length;
}

const cutOf = (r: GuardedRun) => r.records.find((x) => x.type === "cut");
const guided = (r: GuardedRun) => r.up.main().filter((q) => JSON.stringify(q.body).includes("Loop Sentinel stopped your last response"));

/** What each agent does after a clean cut: Claude Code and the Copilot CLI continue by themselves, Codex and the Gemini CLI at the next turn. */
const SAME_RUN: Record<Agent, boolean> = { claude: true, copilot: true, codex: false, gemini: false };
/** Measured: after a refused call (the answer ended before it, with the reason as text) Codex and the Gemini CLI end their turn; Claude Code and the Copilot CLI ask again. */
const ENDS_AT_REFUSAL: Record<Agent, boolean> = { claude: false, copilot: false, codex: true, gemini: true };
/**
 * A call the engine refuses is held back mid-stream. The Gemini CLI's calls carry no id from the
 * model (the CLI names them itself afterwards): the guard names them by their place in the
 * conversation and reads the CLI's ids back to it (requests.history), so they are refused too.
 */
const REFUSED_LIVE: Record<Agent, boolean> = { claude: true, copilot: true, codex: true, gemini: true };

describe("stream guard with the real agent CLIs (loop-sentinel run)", function () {
  this.timeout(400_000);
  const measured: string[] = [];
  after(() => { if (measured.length) console.log(`\n    measured:\n      ${measured.join("\n      ")}`); });

  for (const agent of AGENTS) {
    it(`${agent} through \`loop-sentinel proxy\` (pointed at by hand) in front of an https provider: the loop is cut, the guidance delivered, exit 0; the proxy's JSON lines say so`, async () => {
      const runs = await runGuarded(agent, "via-proxy", { viaProxy: true, tls: true, secondTurn: !SAME_RUN[agent] });
      const r = runs[runs.length - 1];
      for (const run of runs) assert.equal(run.code, 0, describeRun(run));
      assert.match(r.up.url, /^https:/);
      assert.equal(r.records[0].type, "listening");
      assert.match(r.records[0].url, /^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{24}$/);
      const iv = r.records.find((x) => x.type === "intervention");
      assert.ok(iv && iv.action === "abort" && iv.detector && iv.message && iv.evidence && iv.session, JSON.stringify(r.records));
      assert.ok(r.records.some((x) => x.type === "cut"));
      assert.ok(r.records.some((x) => x.type === "guidance"));
      assert.equal(r.up.main()[0].clientGone, true);
      assert.equal(r.up.main()[1].answer, "final");
      assert.ok(carriesGuidance(r.up.main()[1].body));
      assert.equal(r.records.at(-1)!.type, "done");
      assert.ok(!JSON.stringify(r.records).includes("fake-key"), "no key in the output");
    });
  }

  it("claude: a stream that fails makes Claude Code ask again not streamed; that whole looping answer is cut before it reaches the agent, the guidance goes into the next request, exit 0", async function () {
    if (!AGENTS.includes("claude")) this.skip();
    const [r] = await runGuarded("claude", "whole-fallback", { upstream: { failStreams: 1 } });
    assert.equal(r.code, 0, describeRun(r));
    const main = r.up.main();
    const whole = main.find((q) => q.body.stream !== true && q.answer === "loop");
    assert.ok(whole, `a non-streamed request: ${describeRun(r)}`);
    assert.equal(whole.completed, true, "a whole answer cannot be stopped upstream");
    assert.ok(r.records.some((x) => x.type === "cut"), describeRun(r));
    assert.ok(main.some((q) => q.answer === "final" && carriesGuidance(q.body)), describeRun(r));
    assert.ok(r.stdout.includes(FINAL.slice(0, 20)), r.stdout.slice(-600));
    measured.push(`claude fallback: ${main.map((q) => `${q.body.stream === true ? "streamed" : "whole"} ${q.answer}${q.refused ? ` (${q.refused})` : ""}`).join(", ")}; exit ${r.code}`);
  });

  for (const agent of AGENTS) {
    for (const reasoning of [false, true]) {
      const what = reasoning ? "thinking" : "text";
      it(`${agent}: a ${what} loop is cut before its 6th copy, the upstream stops, the guidance is in the next request, exit 0`, async () => {
        const runs = await runGuarded(agent, `loop-${what}`, { upstream: { reasoning }, secondTurn: !SAME_RUN[agent] });
        const r = runs[0];
        const info = describeRun(r);
        for (const run of runs) assert.equal(run.code, 0, describeRun(run));
        const cut = cutOf(r);
        assert.ok(cut, `no cut: ${info}`);
        assert.ok(cut.streamedChars < 6 * PARAGRAPH.length, `cut after ${cut.streamedChars} characters`);
        const main = r.up.main();
        assert.equal(main[0].answer, "loop");
        assert.equal(main[0].clientGone, true, "the upstream request was ended");
        assert.ok(main[0].written < 6 * PARAGRAPH.length, `${main[0].written} characters written upstream`);
        assert.equal(guided(r).length >= 1, true, `guidance in a later request: ${info}`);
        assert.equal(main[1].answer, "final", info);
        assert.deepEqual(main.filter((q) => q.refused).map((q) => q.refused), [], "nothing refused (no cut thinking sent back)");
        assert.equal(main.filter((q) => q.answer === "loop").length, 1, `no retry of the looping request: ${info}`);
        const last = runs[runs.length - 1];
        assert.ok(last.stdout.includes(FINAL.slice(0, 20)), `the agent shows the final answer: ${last.stdout.slice(-800)}`);
        measured.push(`${agent} ${what} loop: ${cut.streamedChars} characters streamed before the cut, ${cut.msFromFirstByte} ms from the first byte (the first copy takes 60 ms), ${main.length} main requests, exit ${runs.map((x) => x.code).join("/")}, ${runs.map((x) => x.ms).join("+")} ms`);
      });
    }

    if (SAME_RUN[agent]) {
      it(`${agent}: a second loop in the session is stopped: the guard answers, nothing more goes upstream, exit 0`, async () => {
        const [r] = await runGuarded(agent, "second-loop", { upstream: { decide: () => "loop" } });
        assert.equal(r.code, 0, describeRun(r));
        const actions = r.records.filter((x) => x.type === "intervention").map((x) => x.action);
        assert.deepEqual(actions, ["abort", "stop"], describeRun(r));
        assert.ok(r.records.some((x) => x.type === "answered"), describeRun(r));
        assert.equal(r.up.main().length, 2, describeRun(r));
        assert.ok(r.stdout.includes("Loop Sentinel stopped the task"), r.stdout.slice(-800));
      });
    } else {
      // Codex and the Gemini CLI end their turn at a clean cut (they do not continue by themselves):
      // a second loop can only come with the user's next turn, and by default a message of the
      // user's starts every count afresh (resetOnUserMessage), so it is cut as a first loop again.
      // With that setting off, one guard across both turns stops the second loop.
      it(`${agent}: a second loop, in the user's next turn (the agent ends its turn at a cut), is stopped by a guard that keeps counting across turns (resetOnUserMessage off), exit 0`, async () => {
        const runs = await runGuarded(agent, "second-loop", { upstream: { decide: () => "loop" }, viaProxy: true, secondTurn: true, set: ["resetOnUserMessage=false"] });
        const r = runs[runs.length - 1];
        for (const run of runs) assert.equal(run.code, 0, describeRun(run));
        const actions = r.records.filter((x) => x.type === "intervention").map((x) => x.action);
        assert.deepEqual(actions, ["abort", "stop"], describeRun(r));
        assert.deepEqual(r.records.filter((x) => x.type === "cut").map((x) => x.action), ["abort", "stop"]);
        const main = r.up.main();
        assert.equal(main.length, 2, `one request a turn, each cut: ${describeRun(r)}`);
        assert.ok(main.every((q) => q.clientGone), "both upstream requests were ended");
        assert.ok(carriesGuidance(main[1].body), "the first loop's guidance went with the next turn");
        assert.ok(r.stdout.includes("Loop Sentinel stopped the task"), r.stdout.slice(-800));
        measured.push(`${agent} second loop (next turn, counts kept): ${actions.join(", ")}; ${main.length} main requests, exit ${runs.map((x) => x.code).join("/")}`);
      });
    }

    it(`${agent}: an identical-call loop (no hook installed) is ${REFUSED_LIVE[agent] ? "refused at the 5th call and " : "warned, then "}ended before the 7th, exit 0`, async () => {
      const [r] = await runGuarded(agent, "call-loop", { upstream: { decide: () => "call" } });
      assert.equal(r.code, 0, describeRun(r));
      const actions = r.records.filter((x) => x.type === "intervention").map((x) => `${x.action}:${x.detector}`);
      assert.ok(actions.includes("block:tool-repeat"), actions.join(" "));
      const ran = resultsRun(r);
      // Refused live: the 5th and 6th are never handed over.
      assert.equal(ran, REFUSED_LIVE[agent] ? 4 : 6, `calls that ran: ${describeRun(r)}`);
      if (ENDS_AT_REFUSAL[agent]) {
        // Codex and the Gemini CLI end their turn when the answer that held the refused call ends:
        // the loop is over at the 5th call, and the refusal's guidance waits for the next turn.
        assert.ok(r.records.some((x) => x.type === "cut" && x.action === "block" && x.droppedCall), describeRun(r));
        assert.equal(r.up.main().filter((q) => q.answer === "call").length, 5, `the 5th answer was the last: ${describeRun(r)}`);
        assert.ok(!actions.some((a) => a.startsWith("stop:")), actions.join(" "));
      } else {
        // The others ask again after the refusal: the 7th call ends the session. Claude Code gets the
        // stop as a cut answer and then the guard's answer; the Copilot CLI (which continues at most
        // twice after a length end) ends at the cut.
        assert.ok(actions.some((a) => a.startsWith("stop:")), actions.join(" "));
        assert.ok(r.records.some((x) => (x.type === "cut" && x.action === "stop") || x.type === "answered"), describeRun(r));
      }
      measured.push(`${agent} identical calls: ${ran} ran, then ${actions.join(", ")}; ${r.up.main().length} main requests, exit ${r.code}`);
    });

    it(`${agent}: with the upstream down the agent gets the upstream's error (a 502 naming it), as it would without the guard`, async () => {
      // The agent's own retry cap lowered (harness: agentRetries) so that this takes seconds: with
      // its defaults Claude Code retries 10 times over minutes and Codex about 30 times.
      const [r] = await runGuarded(agent, "upstream-down", { upstreamUrl: "http://127.0.0.1:9", agentRetries: agent === "copilot" ? undefined : 1 });
      assert.notEqual(r.code, 0, describeRun(r));
      assert.match(r.stdout + r.stderr, /could not reach http:\/\/127\.0\.0\.1:9|502/, describeRun(r));
      assert.equal(r.up.requests.length, 0);
      measured.push(`${agent} upstream down: exit ${r.code} in ${r.ms} ms`);
    });

    it(`${agent}: a productive stream of 20,000 characters reaches the agent untouched`, async () => {
      const [r] = await runGuarded(agent, "productive", { upstream: { decide: () => "productive", productive: PRODUCTIVE, productiveDelta: 40, delayMs: 0 } });
      assert.equal(r.code, 0, describeRun(r));
      assert.deepEqual(r.records.filter((x) => x.type === "intervention" || x.type === "cut"), [], describeRun(r));
      assert.equal(r.up.main().length, 1, describeRun(r));
      assert.equal(r.up.main()[0].completed, true);
      assert.ok(!r.up.requests.some((q) => carriesGuidance(q.body)), "nothing added");
    });
  }

  for (const agent of ["claude", "codex"] as const) {
    it(`${agent} pointed as the extension points it (${agent === "claude" ? "its settings.json's env, no variable given" : "its own provider's base_url in config.toml"}): the real CLI goes through the guard, the loop is cut, the SessionManager shows the guidance delivered, and the file comes back byte for byte`, async function () {
      if (!AGENTS.includes(agent)) this.skip();
      const bin = ensureCli(agent);
      const dir = path.join(os.tmpdir(), "loop-sentinel-streamguard-e2e", `${agent}-extension-pointing`);
      fs.rmSync(dir, { recursive: true, force: true });
      const ws = path.join(dir, "ws");
      fs.mkdirSync(ws, { recursive: true });
      fs.writeFileSync(path.join(ws, "a.txt"), "hello\n");
      const up = new LoopingUpstream({});
      await up.start();
      const penv: NodeJS.ProcessEnv = { HOME: path.join(dir, "home"), CLAUDE_CONFIG_DIR: path.join(dir, "claude-config"), CODEX_HOME: path.join(dir, "codex-home"), LOOP_SENTINEL_HOME: path.join(dir, "ls") };
      // The user's own endpoint, in their settings (as a gateway or a local model would be).
      const file = agent === "claude" ? path.join(penv.CLAUDE_CONFIG_DIR!, "settings.json") : path.join(penv.CODEX_HOME!, "config.toml");
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, agent === "claude"
        ? `{\n  "env": {\n    "ANTHROPIC_BASE_URL": "${up.url}"\n  }\n}\n`
        : ['model = "fake-model"', 'model_provider = "fake"   # my provider', "", "[model_providers.fake]", 'name = "fake"', `base_url = "${up.url}/v1"`, 'wire_api = "responses"', 'env_key = "FAKE_API_KEY"', ""].join("\n"));
      const before = fs.readFileSync(file);
      const manager = new SessionManager({ log: { info() {}, warn() {}, error() {}, debug() {} }, confirm: async () => "dismiss" });
      const host = new StreamGuardHost({ env: { log: () => {}, globalStorageRoot: undefined }, engineConfig: () => manager.config.engine, processEnv: penv });
      manager.addAdapters([host]);
      try {
        const [pointed] = await host.apply([agent]);
        assert.equal(pointed.state, "pointed", pointed.detail);
        const env: NodeJS.ProcessEnv = { ...process.env, ...penv, NO_COLOR: "1", ANTHROPIC_API_KEY: "fake-key", ANTHROPIC_MODEL: "fake-model", ANTHROPIC_SMALL_FAST_MODEL: "fake-model", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1", FAKE_API_KEY: "fake-key-123" };
        delete env.ANTHROPIC_BASE_URL;
        delete env.XDG_RUNTIME_DIR;
        const turns = agent === "claude"
          ? [[bin, "-p", "List the files here", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash"]]
          // Codex ends its turn at the cut: the guidance goes with the next one.
          : [[bin, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "List the files here"], [bin, "exec", "resume", "--last", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "Please continue"]];
        const runs: Array<{ code: number | null; stdout: string }> = [];
        for (const command of turns) {
          runs.push(await runNice(command, { cwd: ws, env }, 180_000));
        }
        const main = up.main();
        const info = `exit ${runs.map((x) => x.code).join("/")}; requests ${main.map((q) => `${q.answer}${q.clientGone ? " cut" : ""}`).join(", ")}`;
        for (const run of runs) assert.equal(run.code, 0, info);
        assert.equal(main[0].answer, "loop", info);
        assert.equal(main[0].clientGone, true, "the upstream request was ended");
        assert.ok(carriesGuidance(main[1].body), info);
        assert.ok(runs[runs.length - 1].stdout.includes(FINAL.slice(0, 20)), runs[runs.length - 1].stdout.slice(-600));
        const snap = manager.snapshots().find((x) => x.hostId === "stream-guard");
        assert.ok(snap && snap.title.startsWith(agent === "claude" ? "Claude Code " : "Codex "), JSON.stringify(manager.snapshots().map((x) => x.title)));
        const abort = snap.interventions.find((x) => x.action === "abort");
        assert.ok(abort && abort.phase === "done", JSON.stringify(snap.interventions.map((x) => `${x.action}:${x.phase}`)));
        for (let i = 0; i < 100 && manager.snapshots().find((x) => x.hostId === "stream-guard")!.interventions.find((x) => x.action === "abort")!.delivery !== "delivered"; i++) await new Promise((res) => setTimeout(res, 20));
        assert.equal(manager.snapshots().find((x) => x.hostId === "stream-guard")!.interventions.find((x) => x.action === "abort")!.delivery, "delivered");
        measured.push(`${agent} pointed through its settings (the extension's way): ${info}`);
      } finally {
        await host.apply([]);
        manager.dispose();
        await up.stop();
      }
      assert.ok(fs.readFileSync(file).equals(before), `${path.basename(file)} is back byte for byte`);
    });
  }
});
