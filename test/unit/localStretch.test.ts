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
});
