import * as assert from "node:assert/strict";
import { RepeatTracker, STREAM_REPEAT_DEFAULTS, leastRotation, repeatParams } from "../../src/engine/detectors/streamRepeat";
import type { TraceEvent } from "../../src/engine/events";
import { charRangeOf, chunks, prose, request, runOnly, streamOf } from "./streamTestKit";

const only = (events: TraceEvent[], overrides: Record<string, number | boolean> = {}) => runOnly(["stream-repeat"], events, overrides);
const user: TraceEvent = { t: "user", text: "go" };

const SENTENCE = "I have added all the requested logs and verified the test file. I will now mark the task as complete.\n  ";
const BLOCK = "The issue might be that the API call is not being made properly when the switch is toggled. Let me make sure the fetchPublicRecipes function is called correctly in the useEffect, that the dependency array includes showPublic, and that the response is stored with setRecipes. If the state update happens before the fetch resolves, the list would render empty. I should also check that the endpoint path matches the server route /api/recipes/public and that credentials are included. ";

describe("stream-repeat", () => {
  it("catches a 16-char chant in thinking only after about ten copies", () => {
    const intro = "Version bumped and published. Let me write the confirmation.\n";
    const unit = "0.0.1 deployed. ";
    const events = [user, ...request(streamOf("reasoning", intro + unit.repeat(40)))];
    const ivs = only(events);
    assert.equal(ivs.length, 1);
    assert.equal(ivs[0].action, "abort");
    assert.equal(ivs[0].detector, "stream-repeat");
    const [, last] = charRangeOf(events, ivs[0].event);
    const copies = (last + 1 - intro.length) / unit.length;
    assert.ok(copies >= 9 && copies <= 12, `fired after ${copies} copies`);
    assert.ok(ivs[0].evidence.count >= 10);
    assert.match(ivs[0].evidence.span ?? "", /deployed/);
    assert.match(ivs[0].message, /thinking repeats the same 16-character passage/);
  });

  it("catches a 58-char sentence chanted in visible text at the end of its third copy", () => {
    const unit = "Terminé. La tâche est complète et tous les tests passent. ";
    const events = [user, ...request(streamOf("text", "Voilà. " + unit.repeat(6)))];
    const ivs = only(events);
    assert.equal(ivs.length, 1);
    const [, last] = charRangeOf(events, ivs[0].event);
    const copies = (last + 1 - "Voilà. ".length) / unit.length;
    assert.ok(copies >= 2.9 && copies < 3.8, `fired after ${copies.toFixed(2)} copies`);
  });

  it("takes a short passage said twice for a slip (a host logging one message twice), three times for a loop", () => {
    const passage = "I have updated the configuration loader so that Windows paths are normalised before the JSON file is read. ";
    assert.ok(passage.length < 300);
    assert.deepEqual(only([user, ...request(streamOf("text", "Summary: " + passage.repeat(2)))]), []);
    assert.equal(only([user, ...request(streamOf("text", "Summary: " + passage.repeat(3)))]).length, 1);
    // a long block said twice in a row is already a loop
    assert.equal(only([user, ...request(streamOf("reasoning", BLOCK.repeat(2)))]).length, 1);
  });

  it("catches a repeated ~100-char sentence in visible text on the chunk that ends its third copy", () => {
    const events = [user, ...request(streamOf("text", "Done. " + SENTENCE.repeat(8)))];
    const ivs = only(events);
    assert.equal(ivs.length, 1);
    const [first, last] = charRangeOf(events, ivs[0].event);
    const thirdEnd = 6 + 3 * SENTENCE.length - 1;
    assert.ok(first <= thirdEnd && thirdEnd <= last, `fired on chars ${first}-${last}, third copy ends at ${thirdEnd}`);
  });

  it("catches a 520-char analysis block by the end of its second copy", () => {
    const events = [user, ...request(streamOf("reasoning", "Looking at RecipeList.tsx now.\n" + BLOCK.repeat(5)))];
    const ivs = only(events);
    assert.equal(ivs.length, 1);
    const [, last] = charRangeOf(events, ivs[0].event);
    assert.ok(last <= 31 + 2 * BLOCK.length + 40, `fired at char ${last}`);
  });

  it("catches blocks up to maxPeriod (4000 chars) and ignores longer ones", () => {
    const big = prose(600, 3).slice(0, 3900) + "\n";
    assert.equal(only([user, ...request(streamOf("reasoning", big + big + big))]).length, 1);
    const huge = prose(900, 4).slice(0, 4500) + "\n";
    assert.equal(only([user, ...request(streamOf("reasoning", huge + huge))]).length, 0);
  });

  it("judges very short units (\"the the the\") as 16-char units", () => {
    const ivs = only([user, ...request(streamOf("reasoning", "So the answer is " + "the ".repeat(30)))]);
    assert.equal(ivs.length, 0, "30 × 4 chars = 120 chars is below the 160 a short unit needs");
    assert.equal(only([user, ...request(streamOf("reasoning", "So the answer is " + "the ".repeat(60)))]).length, 1);
  });

  it("stays quiet on varied prose, dividers, box drawing and whitespace", () => {
    const text = prose(3000, 11) + "\n" + "=".repeat(400) + "\n" + "─".repeat(300) + "\n" + ("│" + " ".repeat(40) + "│\n").repeat(30) + " ".repeat(500) + "\n" + "-+-".repeat(200);
    assert.deepEqual(only([user, ...request(streamOf("text", text))]), []);
  });

  it("needs a much longer run inside a code fence: repetitive code is not a loop", () => {
    const code = "```python\n" + "    print('-' * 40)\n".repeat(25) + "```\nDone.\n";
    assert.deepEqual(only([user, ...request(streamOf("text", code))]), []);
    // The same lines outside a fence are a chant.
    assert.equal(only([user, ...request(streamOf("text", "    print('-' * 40)\n".repeat(25)))]).length, 1);
  });

  it("opens a fence after leading blanks of any kind (a tab, a no-break space), not after four spaces of indent", () => {
    const lines = "    print('-' * 40)\n".repeat(25);
    for (const head of ["\t```python", "\u00a0```", "  ~~~", "\u3000```"]) {
      assert.deepEqual(only([user, ...request(streamOf("text", `${head}\n${lines}\`\`\`\nDone.\n`, { max: 40, seed: 2 }))]), [], JSON.stringify(head));
    }
    // indented four spaces, a fence marker is code in an indented block: the lines after it are no fence
    assert.equal(only([user, ...request(streamOf("text", `    \`\`\`python\n${lines}`, { max: 40, seed: 2 }))]).length, 1);
  });

  it("catches a whole fenced block shown again and again, at its 3rd copy", () => {
    const block = "Here is the final diff:\n\n```diff\n--- a/worker/config.py\n+++ b/worker/config.py\n@@ -1,6 +1,7 @@\n+import os\n import logging\n \n-RETRY_MAX = 3\n+RETRY_MAX = int(os.environ.get(\"RETRY_MAX\", \"3\"))\n RETRY_BACKOFF = 2.0\n```\n\n";
    const events = [user, ...request(streamOf("text", block.repeat(6), { max: 40, seed: 4 }))];
    const ivs = only(events);
    assert.equal(ivs.length, 1);
    const [a, b] = charRangeOf(events, ivs[0].event);
    assert.ok(b >= 3 * block.length - 1 - 2 && a < 3 * block.length + 40, `fired in ${a}-${b}, the 3rd copy ends at ${3 * block.length - 1}`);
    assert.deepEqual(only([user, ...request(streamOf("text", block.repeat(2)))]), [], "shown twice can be a slip");
  });

  it("needs a much longer run in table rows too", () => {
    const table = "| Task | Owner | Status |\n|---|---|---|\n" + "| TBD | TBD | TBD |\n".repeat(14) + "\nFill these in later.\n";
    assert.deepEqual(only([user, ...request(streamOf("text", table))]), []);
  });

  it("keeps reasoning and text apart, and starts afresh each request", () => {
    const half = SENTENCE;
    const split = [user, ...request(streamOf("reasoning", half), streamOf("text", half)), ...request(streamOf("reasoning", half))];
    assert.deepEqual(only(split), []);
  });

  it("fires at the same character whether text arrives 1, 7, 40 or random 1-40 chars at a time", () => {
    const text = "Checking the build.\n" + SENTENCE.repeat(4);
    const positions = new Set<number>();
    const sizes: Array<number | { max: number; seed: number }> = [1, 7, 40, { max: 40, seed: 1 }, { max: 40, seed: 2 }];
    for (const size of sizes) {
      const events = [user, ...request(streamOf("text", text, size))];
      const ivs = only(events);
      assert.equal(ivs.length, 1);
      const [first, last] = charRangeOf(events, ivs[0].event);
      if (size === 1) positions.add(first);
      else for (const p of positions) assert.ok(p >= first && p <= last, `size ${JSON.stringify(size)}: chunk ${first}-${last} misses ${p}`);
    }
    assert.equal(positions.size, 1);
  });

  it("stops the task when the same block loops again after the abort, whatever phase it starts in", () => {
    const events = [user, ...request(streamOf("reasoning", BLOCK.repeat(3))), ...request(streamOf("reasoning", "Retrying. " + BLOCK.slice(100) + BLOCK.repeat(3)))];
    const ivs = only(events);
    assert.deepEqual(ivs.map((i) => i.action), ["abort", "stop"]);
    assert.equal(ivs[0].key, ivs[1].key);
  });

  it("can be switched off and tuned", () => {
    const events = [user, ...request(streamOf("text", SENTENCE.repeat(6)))];
    assert.deepEqual(only(events, { enabled: false }), []);
    const late = only(events, { minCopies: 5 });
    const early = only(events);
    assert.ok(late[0].event > early[0].event);
  });

  it("keeps memory bounded on a long stream", () => {
    const t = new RepeatTracker("reasoning", repeatParams(STREAM_REPEAT_DEFAULTS));
    t.push(prose(200, 5));
    const early = t.held;
    for (const c of chunks(prose(40000, 6), 37)) t.push(c);
    assert.ok(t.length > 200000);
    assert.ok(t.held <= early + 24, `holds ${t.held}, held ${early} early on`);
    assert.ok(t.held < 5 * 8192 + 24);
  });

  it("names one loop by one key whatever rotation it was caught in", () => {
    const u = "abcXYZabd";
    const rot = (s: string, k: number) => s.slice(k) + s.slice(0, k);
    const canon = (s: string) => rot(s, leastRotation(s));
    for (let k = 0; k < u.length; k++) assert.equal(canon(rot(u, k)), canon(u));
  });
});
