/**
 * Loop Sentinel's pi extension in the real pi 0.73.1 (from npm, offline, RPC mode, against the
 * scripted fake model), installed with `pi install` of this package's root: a reasoning loop cut
 * mid-stream and the model resumed with guidance, not the loop; identical calls warned, refused
 * with the reason and the run ended; a failing command retried and re-reads caught; productive
 * look-alikes (tests re-run after edits, polling whose output changes, paging) untouched;
 * warn-only sends nothing; `/loop-sentinel` answers. What was delivered is read from the requests
 * the fake model received.
 * Run: `npm run test:e2e:pi`.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { LOOP_SENTINEL, NO_GUARD, runPi, RUNS_ROOT, type RunResult } from "./harness";
import { messageText, type RequestRecord } from "./fakeModel";
import { FAILING_COMMAND, IDENTICAL_CALLS, LOOKALIKES, LOOP_COPIES, LOOP_PARAGRAPH, LOOPS, REASONING_LOOP, REREADS, type Scenario } from "./scenarios";
import { judge, peerGuards, table, type Cell } from "./sideBySide";

/** The guidance texts the engine writes (guidance.ts): a warning, a refusal, a cut, a stop. */
const WARNING = /^Loop Sentinel: /;
const REFUSAL = /Loop Sentinel refused this call/;
const CUT = /Loop Sentinel stopped your last response/;
const STOP = /Loop Sentinel stopped the task/;

/** The texts the model received after its last turn (Chat Completions roles: "tool" results, "user" messages). */
function tailTexts(r: RequestRecord): { role: string; text: string }[] {
  return r.tail.map((m) => ({ role: String(m.role), text: messageText(m) }));
}
function firstWith(res: RunResult, re: RegExp, role?: string): number | undefined {
  return res.model.requests.find((q) => tailTexts(q).some((t) => re.test(t.text) && (role === undefined || t.role === role)))?.n;
}
function describeRun(res: RunResult): string {
  const lines = res.model.requests.map((q) => `  #${q.n}${q.clientGone ? ` (cut after ${q.streamedChars} of ${q.totalChars} chars)` : ""}: ${tailTexts(q).map((t) => `${t.role}: ${t.text.slice(0, 90).replace(/\n/g, " ")}`).join(" | ")}`);
  return `${res.model.requests.length} requests in ${(res.ms / 1000).toFixed(1)} s, exit ${res.code}, run folder ${res.dir}\n${lines.join("\n")}`;
}

/** Other pi loop guards to run the same sessions with (`PI_PEER_GUARDS=name=folder,...`), beside bare pi. */
const PEERS = peerGuards();
const cells: Cell[] = [];

/**
 * Runs one scripted session with Loop Sentinel, and for the side-by-side table also with bare pi
 * and each peer guard; the table's cells are judged from what the model received in each.
 */
async function sideBySide(sc: Scenario): Promise<RunResult> {
  const bare = await runPi(NO_GUARD, sc.name, sc.steps, { files: sc.files });
  cells.push(judge(NO_GUARD, sc, bare, bare));
  const ours = await runPi(LOOP_SENTINEL, sc.name, sc.steps, { files: sc.files });
  cells.push(judge(LOOP_SENTINEL, sc, ours, bare));
  for (const peer of PEERS) cells.push(judge(peer, sc, await runPi(peer, sc.name, sc.steps, { files: sc.files }), bare));
  return ours;
}

describe("pi 0.73.1 with Loop Sentinel's extension (pi install of the package root)", function () {
  this.timeout(300_000);

  after(() => {
    if (cells.length === 0) return;
    const text = table(cells, [NO_GUARD, LOOP_SENTINEL, ...PEERS], [...LOOPS, ...LOOKALIKES].filter((sc) => cells.some((c) => c.scenario === sc.name)));
    fs.writeFileSync(path.join(RUNS_ROOT, "side-by-side.md"), text + "\n");
    console.log(`\n  Side by side (also in ${path.join(RUNS_ROOT, "side-by-side.md")}):\n${text}\n`);
  });

  before(() => {
    assert.ok(fs.existsSync(`${LOOP_SENTINEL.packageDir}/dist/pi-extension.js`), "dist/pi-extension.js is built (npm run build)");
  });

  it("a reasoning loop is cut mid-stream; the next request carries the guidance and not the loop", async () => {
    const res = await sideBySide(REASONING_LOOP);
    const info = describeRun(res);
    console.log(`      ${info}`);
    const [first, second] = res.model.requests;
    assert.ok(first?.clientGone, `pi closed the looping stream: ${info}`);
    assert.ok(first.streamedChars < first.totalChars / 2, `cut well before the end (${first.streamedChars} of ${first.totalChars}): ${info}`);
    assert.ok(second, `the model was asked again after the cut: ${info}`);
    assert.ok(tailTexts(second).some((t) => t.role === "user" && CUT.test(t.text)), `the guidance is the next request's last message: ${info}`);
    const sent = JSON.stringify(second.body.messages);
    assert.ok(!sent.includes(LOOP_PARAGRAPH.trim().slice(0, 60)), `the looping thinking is not in the next request: ${info}`);
    // The session keeps the cut response's marker, not the loop.
    const session = fs.readFileSync(res.session, "utf8");
    assert.ok(session.includes("[Loop Sentinel cut this response"), `the session holds the marker: ${res.session}`);
    assert.ok(session.split(LOOP_PARAGRAPH.trim().slice(0, 60)).length - 1 < 2, `the session does not hold the loop (${LOOP_COPIES} copies streamed): ${res.session}`);
    // The run went on: the script's next step (a read) was served and answered.
    assert.ok(res.model.requests.length >= 3, `the model went on after the guidance: ${info}`);
  });

  it("the same answer after each \"continue\": the repeat is cut once whole, kept out of the next request, and the model resumed with guidance", async () => {
    const same = { text: "I need to look at calc.js again and work out why the sum is wrong before I change anything in it." };
    const res = await runPi(LOOP_SENTINEL, "nudged-same-answer", [same, same, same, same, { text: "add() subtracts; it should return a + b." }], {
      prompt: "Why does the test fail?",
      after: [{ type: "prompt", message: "continue" }, { type: "prompt", message: "continue" }],
    });
    const info = describeRun(res);
    console.log(`      ${info}`);
    const guided = res.model.requests.find((q) => tailTexts(q).some((t) => t.role === "user" && CUT.test(t.text)));
    assert.ok(guided, `the guidance reached the model: ${info}`);
    // pi leaves a response marked aborted out of its requests: the repeated answer is there once, not twice.
    const copies = (guided.body.messages as Record<string, unknown>[]).filter((m) => m.role === "assistant" && messageText(m).includes(same.text)).length;
    assert.equal(copies, 1, `the repeated answer is kept out of the request that carries the guidance: ${info}`);
    const session = fs.readFileSync(res.session, "utf8");
    assert.ok(session.includes("[Loop Sentinel cut this response"), `the session holds the marker in its place: ${res.session}`);
  });

  it("identical calls: a warning the model reads, then the call refused with the reason, then the run ended", async () => {
    const res = await sideBySide(IDENTICAL_CALLS);
    const info = describeRun(res);
    console.log(`      ${info}`);
    const warned = firstWith(res, WARNING, "user");
    const refused = firstWith(res, REFUSAL, "tool");
    assert.ok(warned !== undefined, `a warning reached the model as a message: ${info}`);
    assert.ok(refused !== undefined && warned < refused, `then a refusal as the call's result: ${info}`);
    // The stop ends the run: pi does not ask the model again, and the script (12 calls) is cut short.
    assert.ok(res.model.requests.length < IDENTICAL_CALLS.steps.length, `the run ended before the script did: ${info}`);
    const last = res.model.requests[res.model.requests.length - 1];
    assert.ok(last.step.call !== undefined, `the last request's call was the one the stop refused: ${info}`);
    const stopNote = res.out.find((l) => l.type === "message_end" && STOP.test(JSON.stringify(l)));
    assert.ok(stopNote, `the stop's reason is left in the session: ${info}`);
    assert.ok(res.report.some((l) => l.type === "intervention" && l.action === "stop"), `the report says it stopped: ${info}`);
  });

  for (const sc of [FAILING_COMMAND, REREADS]) {
    it(`${sc.name}: caught, and the guidance reached the model`, async () => {
      const res = await sideBySide(sc);
      const info = describeRun(res);
      console.log(`      ${info}`);
      const guided = firstWith(res, /Loop Sentinel/);
      assert.ok(guided !== undefined, `Loop Sentinel's guidance reached the model: ${info}`);
      assert.ok(res.model.requests.length < sc.steps.length, `the loop was ended before the script did: ${info}`);
    });
  }

  for (const sc of LOOKALIKES) {
    it(`${sc.name} (productive) is untouched`, async () => {
      const res = await sideBySide(sc);
      const info = describeRun(res);
      console.log(`      ${info}`);
      assert.equal(firstWith(res, /Loop Sentinel/), undefined, `nothing from Loop Sentinel reached the model: ${info}`);
      assert.equal(res.model.requests.length, sc.steps.length, `every step ran: ${info}`);
      assert.ok(res.model.requests.every((q) => !q.clientGone), `no response was cut: ${info}`);
      assert.deepEqual(res.report.filter((l) => l.type === "intervention"), [], `no intervention: ${info}`);
    });
  }

  it("warn-only: the user is told, nothing reaches the model, nothing is refused or cut", async () => {
    const res = await runPi(LOOP_SENTINEL, "warn-only", IDENTICAL_CALLS.steps.slice(0, 8), { settings: { "loopSentinel.mode": "warnOnly" } });
    const info = describeRun(res);
    console.log(`      ${info}`);
    assert.equal(firstWith(res, /Loop Sentinel/), undefined, `nothing sent to the model: ${info}`);
    assert.equal(res.model.requests.length, 9, `every call ran (8 calls, then the final answer): ${info}`);
    const told = res.out.filter((l) => l.type === "extension_ui_request" && l.method === "notify" && /warn-only/.test(String(l.message)));
    assert.ok(told.length > 0, `the user was told (notify): ${info}`);
  });

  it("/loop-sentinel off lets a loop run, on acts on the next one, status says so", async () => {
    const ls = IDENTICAL_CALLS.steps[0];
    const steps = [...Array(6).fill(ls), { text: "Listed it six times." }, ...Array(8).fill(ls)];
    const res = await runPi(LOOP_SENTINEL, "command", steps, {
      noFixture: true,
      prompt: "/loop-sentinel off",
      after: [
        { type: "prompt", message: "List the folder until I say stop." },
        { type: "prompt", message: "/loop-sentinel status" },
        { type: "prompt", message: "/loop-sentinel on" },
        { type: "prompt", message: "List it again." },
      ],
    });
    const info = describeRun(res);
    console.log(`      ${info}`);
    const offRun = res.model.requests.slice(0, 7);
    assert.ok(offRun.every((q) => !tailTexts(q).some((t) => /Loop Sentinel/.test(t.text))), `off: nothing reached the model: ${info}`);
    assert.equal(offRun[6]?.step.text, "Listed it six times.", `off: all six calls ran: ${info}`);
    const onRun = res.model.requests.slice(7);
    assert.ok(onRun.some((q) => tailTexts(q).some((t) => REFUSAL.test(t.text))), `on: the next loop was refused: ${info}`);
    const notes = res.out.filter((l) => l.type === "extension_ui_request" && l.method === "notify").map((l) => String(l.message));
    const status = notes.filter((m) => /this session:/.test(m));
    assert.ok(/^Loop Sentinel: off/.test(status[1] ?? ""), `/loop-sentinel status says it is off: ${JSON.stringify(notes)}`);
    assert.ok(/^Loop Sentinel: on/.test(status[2] ?? ""), `/loop-sentinel on says it is on: ${JSON.stringify(notes)}`);
  });


  it("side by side: every loop caught by Loop Sentinel, no false alarm, each judged against bare pi", () => {
    const ours = cells.filter((c) => c.guard === LOOP_SENTINEL.name);
    const bare = cells.filter((c) => c.guard === NO_GUARD.name);
    assert.equal(ours.length, LOOPS.length + LOOKALIKES.length, "every session ran");
    for (const c of ours) {
      if (c.loop) assert.ok(c.actedAt !== undefined && c.charsAfterOnset < bare.find((b) => b.scenario === c.scenario)!.charsAfterOnset, `${c.scenario}: caught, with less streamed than bare pi: ${JSON.stringify(c)}`);
      else assert.equal(c.actedAt, undefined, `${c.scenario}: no false alarm: ${JSON.stringify(c)}`);
    }
    // Bare pi against itself: the judge finds nothing where nothing acted.
    assert.ok(bare.every((c) => c.actedAt === undefined), `bare pi judged untouched: ${JSON.stringify(bare)}`);
  });
});
