/**
 * What the user asked, read right: a repetition is granted only by an affirmative ask about the
 * work. Negated asks, limits, conditions, complaints, "many"/"multiple" that count things rather than
 * runs, and a harness's standing instructions around the task ask for no repetition, and must not
 * lift the tool detectors' thresholds.
 */
import * as assert from "node:assert/strict";
import { commandMatches, repetitionIntent } from "../../src/engine/intent";
import { LoopSession } from "../../src/engine/session";
import type { TraceEvent } from "../../src/engine/events";
import { step } from "./toolTestKit";

/** Standing instructions in the manner of a benchmark harness: rules of conduct, paths, and words of repetition, none of them an ask. */
const STANDING = [
  "<instructions>",
  "You are working in /repo on a checkout of the project. The tests live in tests/ and the sources in src/pkg/core.py and src/pkg/util.py.",
  "You can make multiple tool calls in a single response when they are independent.",
  "You should always wait for feedback after every command.",
  "A command that did not work once will not work the second time unless you modify it!",
  "If a file is long, don't just use the scroll_down command multiple times: jump to the line you need.",
  "Never run the same failing command again and again; never retry more than twice.",
  "Handle as many files as the change needs, and clean up temporary files when you are done.",
  "</instructions>",
].join("\n");

describe("intent: repetition is granted only when asked for", () => {
  it("reads negated asks, limits, conditions and complaints as no ask, in several languages", () => {
    for (const text of [
      "Don't just run it multiple times.", "Do not read office-details.component.html again and again.", "Never retry more than twice.",
      "Run it at most 3 times.", "No more than two runs, please.", "If it fails several times, stop and tell me.", "You keep running it over and over.",
      "Ne le relance pas plusieurs fois.", "No lo ejecutes varias veces.", "Führe ihn nicht mehrmals aus.", "不要多次运行这个测试。",
    ]) assert.equal(repetitionIntent(text).counted, false, text);
  });

  it("reads 'many' and 'multiple' that count things, not runs, as no ask", () => {
    for (const text of ["Handle as many files as the project has.", "You can make multiple tool calls in a single response.", "Count how many open issues are labelled needs-triage.", "Several modules import the parser; fix them all."]) {
      assert.equal(repetitionIntent(text).counted, false, text);
    }
  });

  it("still reads an ask beside a negation in another clause", () => {
    assert.equal(repetitionIntent("Don't change the code; run the test 5 times.").times, 5);
    assert.equal(repetitionIntent("Run it five times, not once.").times, 5);
    assert.equal(repetitionIntent("If it is flaky, re-run it a few times.").times, 5);
    assert.equal(repetitionIntent("Run the benchmark multiple times and average the numbers.").times, 6);
  });

  it("does not read waiting for a person as a poll", () => {
    assert.equal(repetitionIntent("You should always wait for feedback after every command.").waits, false);
    assert.equal(repetitionIntent("Wait for my reply before you push.").waits, false);
    assert.equal(repetitionIntent("Wait for the release build to finish.").waits, true);
  });

  it("reads a harness's standing instructions as no ask, and an ask after them as the ask", () => {
    assert.equal(repetitionIntent(STANDING).counted, false);
    assert.equal(repetitionIntent(STANDING).waits, false);
    const asked = repetitionIntent(`${STANDING}\n\nWait for the release build to finish.`);
    assert.equal(asked.waits, true);
    // The ask names nothing: any command may be the poll, whatever paths the instructions named.
    assert.equal(commandMatches(asked, "sleep 15 && curl -s https://ci.example/api/jobs/5316 | jq .state"), true);
    const named = repetitionIntent(`${STANDING}\n\ntest_login in tests/test_auth.py is flaky. Re-run it a few times.`);
    assert.equal(named.times, 5);
    assert.equal(commandMatches(named, "python -m pytest tests/test_auth.py -q"), true);
    assert.equal(commandMatches(named, "python -m pytest tests/test_core.py -q"), false, "a path of the standing instructions is not what the ask is about");
  });

  it("lets a loop of identical failing calls under standing instructions reach the ladder", () => {
    const evs: TraceEvent[] = [{ t: "user", text: `Fix the crash in the parser.\n\n${STANDING}` }];
    for (let i = 0; i < 6; i++) evs.push(...step(`r${i}`, "bash", { command: "python reproduce.py" }, true, "Traceback (most recent call last):\n  File \"reproduce.py\", line 3, in <module>\nValueError: bad header"));
    const s = new LoopSession();
    const ivs = evs.flatMap((e) => s.push(e));
    assert.ok(ivs.length > 0, "the loop was caught");
    const fourth = evs.findIndex((e) => e.t === "tool_call" && e.id === "r3");
    assert.ok(ivs[0].event <= fourth, `warned by the fourth identical failing call (event ${ivs[0].event}, fourth call at ${fourth})`);
    assert.ok(ivs.some((iv) => iv.action !== "warn"), "the ladder went past the warning");
  });
});
