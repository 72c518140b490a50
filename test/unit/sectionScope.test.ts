import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { isConnectorLabel } from "../../src/engine/detectors/sectionScope";
import { request, runOnly, streamOf } from "./streamTestKit";

const user: TraceEvent = { t: "user", text: "Why does the export skip the last row?" };
const BLOCK = "Nothing else in reports depends on the mutable default, so copying it is safe for every caller.";

describe("connector labels head no section", () => {
  it("tells connectors from labels that name something", () => {
    for (const s of ["to be sure:", "hmm, again:", "in short:", "the fix:"]) assert.equal(isConnectorLabel(s), true, s);
    for (const s of ["api:", "results for billing:", "files changed:", "src/a.ts:", "module auth:", "step #:", "to be sure", ""]) assert.equal(isConnectorLabel(s), false, s);
  });

  it("catches one line said again after each connector, in time, whatever the chunking", () => {
    const connectors = ["To be sure:", "Hmm, again:", "In short:", "To be sure:", "Hmm, again:"];
    const text = "The export reads rows with a half-open range.\n\n" + BLOCK + "\n\n" + connectors.map((c) => `${c}\n\n${BLOCK}`).join("\n\n") + "\n\n";
    for (const seed of [1, 2, 3]) {
      const events = [user, ...request(streamOf("text", text, { max: 40, seed }))];
      const ivs = runOnly(["line-repeat"], events);
      assert.ok(ivs.length >= 1, `seed ${seed}: caught`);
      // the third copy (after the second connector) is the loop
      const third = text.indexOf(BLOCK, text.indexOf(connectors[1])) + BLOCK.length;
      let chars = 0, at = -1;
      for (let i = 0; i < events.length; i++) { const e = events[i]; if (e.t === "text") chars += e.delta.length; if (i === ivs[0].event) { at = chars; break; } }
      assert.ok(at >= third && at <= third + 42, `seed ${seed}: fired at ${at}, third copy ends at ${third}`);
    }
  });

  it("keeps the same note under each item's label apart (api:, db:, ui:, cache:)", () => {
    const text = ["api:", "db:", "queue:", "cache:"].map((l) => `${l}\n\n${BLOCK}`).join("\n\n") + "\n\n";
    assert.deepEqual(runOnly(["line-repeat", "near-duplicate"], [user, ...request(streamOf("text", text))]), []);
  });
});
