/** The short fuzz run (fixed seed, a few seconds): every reader and live translator against mutated input. `npm run fuzz` is the long run. */
import * as assert from "node:assert/strict";
import { runCampaign } from "../fuzz/campaign";

describe("fuzz (short run, fixed seed)", function () {
  this.timeout(180_000);

  it("finds no crash, hang, multi-line error, lost session or live/replay difference in 400 inputs", () => {
    const { tried, failures } = runCampaign(400, 20261124);
    assert.deepEqual(failures, {});
    const inputs = Object.entries(tried).filter(([k]) => k.startsWith("input:") && !k.includes("long unbroken text"));
    assert.equal(inputs.reduce((a, [, n]) => a + n, 0), 400);
    // A long text without spaces or newlines went through every reader and the live translators.
    for (const kind of ["trace", "roo-task", "cline-classic", "cline-session", "pi", "opencode", "claude-code", "gemini-cli"]) {
      assert.ok(Object.keys(tried).some((k) => k.startsWith("input: long unbroken text") && k.endsWith(` in ${kind}`)), kind);
    }
    for (const live of ["live roo", "live cline-classic", "live cline-v4"]) assert.ok(Object.keys(tried).some((k) => k.startsWith(`input: ${live} long unbroken text`)), live);
    // Every format and both live paths were exercised.
    for (const kind of ["trace", "roo-task", "cline-classic", "cline-session", "pi", "opencode", "claude-code", "gemini-cli"]) assert.ok(tried[`input: reader ${kind}`] > 0, kind);
    assert.ok(inputs.some(([k]) => k.startsWith("input: live cline-classic")));
    assert.ok(inputs.some(([k]) => k.startsWith("input: live cline-v4")));
    assert.ok(tried["input: live roo message updates"] > 0);
    assert.ok(tried["input: folder walk (links, loops, FIFOs, bad files)"] > 0);
  });
});
