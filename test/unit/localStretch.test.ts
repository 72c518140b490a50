/**
 * Class 3 of issue 33: a loop is judged on its latest stretch, not on everything since its first
 * copy. Lines that alternate A-B-A after some real work are a loop at the third copy of A, though new
 * work stood between its first two copies. Look-alike: the same verdict line closing each of several
 * different analyses, with new material before every copy.
 */
import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { runOnly, streamOf } from "./streamTestKit";

const A = "I'll mention that I verified the change with the unit tests.";
const B = "I'll mention that I reverted the temporary debugging tests.";

function thinking(lines: string[], chunk: number): TraceEvent[] {
  return [{ t: "user", text: "Fix the env runner." }, { t: "request" }, ...streamOf("reasoning", lines.join("\n") + "\n", chunk), { t: "end" }];
}

describe("a loop judged on its latest stretch", () => {
  it("catches A-B-A alternation after novel lines at the third copy of A, at any chunk size", () => {
    const lines = [A, B, "The fix is in packages/envar/src/env-runner.js, where the argv is built.", "It injects the arguments right after the command name.", A, B, A, B, A, B];
    for (const chunk of [1, 7, 23, 40]) {
      const evs = thinking(lines, chunk);
      const ivs = runOnly(["line-repeat"], evs);
      assert.ok(ivs.length > 0, `caught (chunks of ${chunk})`);
      const text = lines.join("\n");
      const third = text.indexOf(A, text.indexOf(A, text.indexOf(A) + 1) + 1) + A.length;
      let seen = 0;
      const at = evs.findIndex((e) => e.t === "reasoning" && (seen += e.delta.length) >= third);
      assert.ok(ivs[0].event <= at + 1, `at the third A (chunks of ${chunk}: ${ivs[0].event} vs ${at})`);
    }
  });

  it("lets a verdict line that closes each of several different analyses through until its spread count", () => {
    const verdict = "That one is safe to run online, so no migration window is needed for it.";
    const lines: string[] = [];
    for (const [i, table] of ["orders", "invoices", "customers", "shipments"].entries()) {
      lines.push(`Migration ${i + 1} adds an index on ${table}.created_at with CREATE INDEX CONCURRENTLY.`, `The ${table} table has about ${(i + 2) * 3} million rows and is written to constantly.`, verdict);
    }
    assert.deepEqual(runOnly(["line-repeat"], thinking(lines, 13)), []);
  });

  describe("a degenerate stream judged line by line", () => {
    const answer = (text: string, chunk: number, channel: "text" | "reasoning" = "text"): TraceEvent[] =>
      [{ t: "user", text: "Write the release notes." }, { t: "request" }, ...streamOf(channel, text, chunk), { t: "end" }];
    /** The index of the event that carries the text's character at `at`. */
    const eventAt = (evs: TraceEvent[], at: number) => { let seen = 0; return evs.findIndex((e) => (e.t === "text" || e.t === "reasoning") && (seen += e.delta.length) > at); };

    it("catches a response that is nothing but one block of short lines said twice, at the second copy's end, in any chunks and either channel", () => {
      for (const block of [["Generating.", "Go.", "I will write the response.", "Done."], ["Okay.", "Writing it now.", "Here it comes."], ["Step one: read.", "Step two: write.", "Step three: check.", "Step four: answer.", "Finished."]]) {
        const text = block.join("\n") + "\n" + block.join("\n") + "\n" + block.join("\n") + "\n";
        for (const chunk of [1, 9, 40]) for (const channel of ["text", "reasoning"] as const) {
          const evs = answer(text, chunk, channel);
          const ivs = runOnly(["line-repeat"], evs);
          assert.ok(ivs.length > 0, `caught: ${block[0]} (chunks of ${chunk}, ${channel})`);
          const secondEnd = 2 * (block.join("\n").length + 1) - 1;
          assert.ok(ivs[0].event <= eventAt(evs, secondEnd), `at the second copy (chunks of ${chunk}: ${ivs[0].event})`);
        }
      }
    });

    it("lets a block said again after other words, a two-line echo, and code shown twice through", () => {
      const steps = ["- build the package", "- run the tests", "- publish the docs"];
      const lookAlikes = [
        // the plan, then the same items as done: the opening is more than a block said twice
        ["Plan:", ...steps, "Done:", ...steps].join("\n"),
        // an opening line, then a block twice: not the response's opening block
        ["Here are the notes for both channels.", "Stable: fixes the cache.", "Beta: fixes the cache.", "Nightly: fixes the cache.", "Stable: fixes the cache.", "Beta: fixes the cache.", "Nightly: fixes the cache."].join("\n"),
        // two short lines twice
        "Okay.\nChecking.\nOkay.\nChecking.\nThe cache key now includes the tenant id.",
        // the same code twice, before and after a formatter that changed nothing
        "```\nconst a = 1;\nconst b = 2;\nexport { a, b };\n```\n```\nconst a = 1;\nconst b = 2;\nexport { a, b };\n```",
      ];
      for (const text of lookAlikes) for (const chunk of [1, 17]) assert.deepEqual(runOnly(["line-repeat"], answer(text + "\n", chunk)), [], text);
    });
  });
});
