/**
 * Class 6 of issue 33: a text finding needs corroboration. A sentence said again before each passage
 * that gives new facts (a new test, file or identifier every time) frames work that moves on; a list
 * of key-value items whose values change reports new facts, not stale words. The same refrain before
 * passages that give nothing new, or only a climbing counter, is still a loop.
 */
import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { LoopSession } from "../../src/engine/session";
import { streamOf } from "./streamTestKit";

const all = (evs: TraceEvent[]) => { const s = new LoopSession(); return evs.flatMap((e) => s.push(e)); };
const thinking = (text: string, max: number, channel: "reasoning" | "text" = "reasoning"): TraceEvent[] =>
  [{ t: "user", text: "Go through the failing tests." }, { t: "request" }, ...streamOf(channel, text + "\n", { max, seed: max }), { t: "end" }];

const TESTS = ["test_parse_header", "test_limit_zero", "test_tenant_key", "test_utc_compare", "test_flush_reset", "test_round_even", "test_await_inner"];
const CAUSES = ["the header is read case-sensitively", "a zero limit is treated as unlimited", "the tenant id is missing", "timestamps are compared in local time", "the counter is never reset", "half-cents round down", "the inner promise is not awaited"];
const REFRAIN = "I need to look at the next failing test more carefully before changing anything.";
const VERDICT = "That confirms the pattern: each failure comes from one missing default in the core module.";

describe("text findings need corroboration", () => {
  it("lets a refrain before (or after) each passage that names a new test and file through, however many passages", () => {
    for (const max of [3, 17, 40]) {
      const before = TESTS.map((t, i) => `${REFRAIN}\nTest ${t} fails at line ${40 + i * 17} of tests/test_core.py because ${CAUSES[i]}; the fix is in src/core_${i}.py.`).join("\n\n");
      const after = TESTS.map((t, i) => `Test ${t} fails at line ${40 + i * 17} of tests/test_core.py because ${CAUSES[i]}; the fix is in src/core_${i}.py.\n${VERDICT}`).join("\n\n");
      assert.deepEqual(all(thinking(before, max)), [], `refrain before (chunks up to ${max})`);
      assert.deepEqual(all(thinking(after, max)), [], `verdict after (chunks up to ${max})`);
    }
  });

  it("lets key-value status blocks whose values change through", () => {
    const stages = ["fetch", "compile", "link", "test", "package", "upload"];
    const blocks = stages.map((stage, i) => `Build status:\n- stage: ${stage}\n- progress: ${10 + i * 15}%\n- warnings: ${i * 2}\n- elapsed: ${30 + i * 41}s\n- artifacts written: ${i * 3} of 18`).join("\n\n");
    for (const max of [5, 30]) assert.deepEqual(all(thinking(blocks, max, "text")), [], `chunks up to ${max}`);
  });

  it("still catches the refrain before passages that give nothing new, or only a climbing counter", () => {
    const same = Array.from({ length: 7 }, () => `${REFRAIN}\nTest ${TESTS[0]} fails at line 40 of tests/test_core.py because ${CAUSES[0]}.`).join("\n\n");
    const counter = Array.from({ length: 7 }, (_, i) => `${REFRAIN}\nAttempt ${i + 1}: ${TESTS[0]} still fails at line 40 of tests/test_core.py because ${CAUSES[0]}.`).join("\n\n");
    for (const max of [5, 30]) {
      assert.ok(all(thinking(same, max)).length > 0, `the same passage (chunks up to ${max})`);
      assert.ok(all(thinking(counter, max)).length > 0, `a counter only (chunks up to ${max})`);
    }
  });
});
