/**
 * Class 9 of issue 33: the same claims reached again in new words. Reasoning that reaches its verdict
 * ("it is done, the build passes, the tests are green, I will report it") and reaches it again and
 * again, each time worded anew, is a loop whatever words it picks; an enumeration of verdicts about
 * different things, a verdict said twice, or verdicts that move on are not.
 */
import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { runOnly, streamOf } from "./streamTestKit";

const thinking = (paragraphs: string[], max: number): TraceEvent[] =>
  [{ t: "user", text: "Fix the limit parsing." }, { t: "request" }, ...streamOf("reasoning", paragraphs.join("\n\n") + "\n", { max, seed: max }), { t: "end" }];

/** The same verdict in words picked per copy from each slot's synonyms: no two copies alike word for word. */
function restatements(copies: number, seed: number): string[] {
  const slots = [
    ["The whole thing is", "Everything is", "All of it is", "The work is"],
    ["done.", "finished.", "complete.", "wrapped up."],
    ["The build passes", "The compile step succeeds", "The build is green", "It compiles cleanly"],
    ["and the tests are green.", "and all the checks pass.", "and the test suite succeeds.", "and every test passes."],
    ["I should now call the completion tool", "I will just invoke the completion step", "Time to use the completion tool", "I'll call the completion step"],
    ["and report the result.", "and hand back the result.", "and return the outcome.", "and present the result to the user."],
  ];
  return Array.from({ length: copies }, (_, k) => slots.map((s, i) => s[(k * (i + 1) + seed) % s.length]).join(" "));
}

describe("restated claims, not restated words", () => {
  it("catches a verdict reached again and again in new words, by its fifth copy, in any chunks", () => {
    for (const seed of [0, 1, 2, 3]) for (const max of [5, 23, 40]) {
      const paragraphs = ["The caller passes the raw body, so the limit can be undefined here; parseLimit now defaults it to 100.", ...restatements(6, seed)];
      const evs = thinking(paragraphs, max);
      const ivs = runOnly(["near-duplicate"], evs);
      assert.ok(ivs.length > 0, `caught (seed ${seed}, chunks up to ${max})`);
      // (every slot's wording drawn afresh: some pairs of copies share too few words beyond the claims to be alike)
      const fifthEnd = paragraphs.slice(0, 6).join("\n\n").length;
      let seen = 0;
      const at = evs.findIndex((e) => e.t === "reasoning" && (seen += e.delta.length) >= fifthEnd);
      assert.ok(ivs[0].event <= at + 1, `by the fifth copy (seed ${seed}, chunks up to ${max}: ${ivs[0].event} vs ${at})`);
    }
  });

  it("lets verdicts about different modules, a verdict said twice, and verdicts that move on through", () => {
    const modules = ["auth", "billing", "search", "uploads", "reports"].map((m, i) => `Module src/${m}/index.ts is done: the build passes and the ${12 + i} tests in ${m}.test.ts are green, so I will report it as finished.`);
    const twice = restatements(2, 1);
    const movingOn = [
      "The build passes and the tests are green for the parser, so the parser is done and I can move on.",
      "Next the writer: it still fails two tests because the header is written after the body, so I need to change the order.",
      "The writer is fixed now: the build succeeds and its tests pass, which leaves the CLI flags to update.",
      "The CLI flags are updated and documented; the whole suite passes, so I will report the result to the user.",
    ];
    for (const [name, paragraphs] of [["modules", modules], ["twice", twice], ["moving on", movingOn]] as const)
      for (const max of [7, 40]) assert.deepEqual(runOnly(["near-duplicate"], thinking([...paragraphs], max)), [], `${name}, chunks up to ${max}`);
  });
});
