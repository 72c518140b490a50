import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { charRangeOf, prose, request, rng, runOnly, streamOf } from "./streamTestKit";

const only = (events: TraceEvent[], overrides: Record<string, number | boolean> = {}) => runOnly(["near-duplicate"], events, overrides);
const user: TraceEvent = { t: "user", text: "The login form submits twice. Fix it." };
const THOUGHT = "I need to check the file LoginForm.tsx because the onSubmit handler is attached to the form and the button also has an onClick that calls submit, which would fire twice, so I will remove the onClick handler from the button.";
const SWAPS: Array<[string, string]> = [["I need to", "I should"], ["because", "since"], ["would fire twice", "fires two times"], ["so I will", "so I'll"], ["also has", "additionally has"], ["the file", "the component"], ["remove", "drop"]];

/** The thought with a few phrases swapped, chosen by seed: each copy words it a little differently. */
function drifted(seed: number): string {
  const r = rng(seed);
  let t = THOUGHT;
  for (const [a, b] of SWAPS) if (r() < 0.35) t = t.replace(a, b);
  return t;
}

describe("near-duplicate", () => {
  it("catches a paragraph restated with drifting wording, at its third copy", () => {
    const copies = [1, 2, 3, 4, 5].map(drifted);
    assert.ok(new Set(copies).size >= 4, "the copies really differ");
    const text = "The user says the form submits twice.\n\n" + copies.join("\n\n") + "\n\n";
    const events = [user, ...request(streamOf("reasoning", text))];
    const ivs = only(events);
    // the third copy warns; the hard rung needs two copies more: the fifth aborts
    assert.deepEqual(ivs.map((i) => i.action), ["warn", "abort"]);
    assert.equal(ivs[0].evidence.count, 3);
    assert.equal(ivs[1].evidence.count, 5);
    assert.ok((ivs[0].evidence.similarity ?? 0) >= 0.5 && (ivs[0].evidence.similarity ?? 0) < 1);
    const thirdEnd = text.indexOf(copies[2]) + copies[2].length;
    const [a, b] = charRangeOf(events, ivs[0].event);
    assert.ok(thirdEnd >= a && thirdEnd <= b, `fired in ${a}-${b}, third copy ends at ${thirdEnd}`);
    assert.deepEqual(only(events, { warnAt: 0 }).map((i) => i.action), ["abort"], "without the warning rung, the grown thought aborts");
  });

  it("aborts at the first catch when the copies are all but word for word the same (the evidence is already there)", () => {
    const copy = (k: number) => `${THOUGHT}${k % 2 ? "" : " Then the test."}`;
    const text = "The user says the form submits twice.\n\n" + [0, 1, 2].map(copy).join("\n\n") + "\n\n";
    assert.deepEqual(only([user, ...request(streamOf("reasoning", text))]).map((i) => i.action), ["abort"]);
  });

  describe("a thought restated with synonyms swapped in (a third or more of its words changed)", () => {
    // each copy keeps the frame and what it names, and swaps its own words for synonyms
    const copies = [
      "The cache key for session.ts is built before the tenant is known, so every tenant reads the same entry and the stale value wins.",
      "The lookup key in session.ts is made before the tenant is known, hence each tenant reads the same record and the old value wins.",
      "The cache id for session.ts is computed before the tenant is resolved, so every tenant sees one shared entry and the old value wins.",
      "The lookup key for session.ts gets built before the tenant is known, thus each tenant reads the same entry and an outdated value prevails.",
      "The cache id in session.ts is made ahead of the tenant being known, so every tenant sees the same record and the stale value prevails.",
    ];
    const lead = "The user reports that tenants see each other's settings after a deploy.\n\n";

    it("warns at the fourth copy, one more than a closer rewording needs, whatever the chunking", () => {
      for (const seed of [1, 2, 3]) {
        const text = lead + copies.join("\n\n") + "\n\n";
        const events = [user, ...request(streamOf("reasoning", text, { max: 40, seed }))];
        const ivs = only(events);
        assert.equal(ivs[0]?.action, "warn", `seed ${seed}`);
        const fourthEnd = text.indexOf(copies[3]) + copies[3].length;
        const [, b] = charRangeOf(events, ivs[0].event);
        assert.ok(b >= fourthEnd && b <= fourthEnd + 40, `fired at ${b}, fourth copy ends at ${fourthEnd}`);
        const three = lead + copies.slice(0, 3).join("\n\n") + "\n\n";
        assert.deepEqual(only([user, ...request(streamOf("reasoning", three, { max: 40, seed }))]), [], "three loose copies are not enough");
      }
    });

    it("leaves alone parallel sentences in one frame that each name something new", () => {
      const items = ["session.ts", "billing.ts", "tenant.ts", "export.ts", "quota.ts"];
      const verbs = ["built", "made", "computed", "created", "built"];
      const text = lead + items.map((f, k) => `The cache key in ${f} is ${verbs[k]} before the tenant is known, so each tenant reads the same entry for ${f.replace(".ts", "")} and the stale value wins.`).join("\n\n") + "\n\n";
      assert.deepEqual(only([user, ...request(streamOf("reasoning", text))]), []);
    });

    it("leaves alone one sentence frame kept in order over other subjects each time (hypotheses in turn)", () => {
      const subjects = [["build script", "old schema", "default timeout"], ["search service", "migration table", "build cache"], ["webhook client", "lock file", "stale token"], ["upload handler", "empty header", "first row"], ["state reducer", "quoted comma", "locale string"]];
      const text = lead + subjects.map(([a, b, c], k) => `Hypothesis ${k + 1}: so the fix is to make the ${a} stop treating the ${b} as the ${c} whenever the cache is cold.`).join("\n\n") + "\n\n";
      assert.deepEqual(only([user, ...request(streamOf("reasoning", text))]), []);
    });

    it("leaves alone a plan settling step by step in the same words, each step with a new line number", () => {
      const text = lead + [
        "I could insert the tenant check at line 42 of session.ts, before the key is built, so the key includes the tenant.",
        "Or I could insert the tenant check at line 57 of session.ts, after the key is built, so the entry is checked on read.",
        "Inserting the tenant check at line 63 of session.ts, where the entry is written, would make the key include the tenant too.",
        "Line 42 is the right place: the key is built there and nothing reads the entry before it, so the check goes in at 42.",
      ].join("\n\n") + "\n\n";
      assert.deepEqual(only([user, ...request(streamOf("reasoning", text))]), []);
    });
  });

  it("catches drifting paragraphs of short lines as a whole", () => {
    const para = (v: number) => [
      "The login test still fails on submit.",
      v % 2 ? "The handler is attached twice." : "The handler seems attached twice.",
      "The button has an onClick as well.",
      v % 2 ? "I will remove the onClick now." : "I will drop the onClick now.",
    ].join("\n");
    const text = [1, 2, 3, 4].map(para).join("\n\n") + "\n\n";
    const ivs = only([user, ...request(streamOf("reasoning", text))]);
    assert.equal(ivs.length, 1);
    assert.match(ivs[0].summary, /same paragraph in other words 3 times/);
  });

  it("catches a thought restated in drifting words inside one run-on line", () => {
    const copies = [1, 2, 3, 4, 5, 6].map(drifted);
    const text = "The form submits twice on Enter. " + copies.join(" ");
    assert.ok(!text.includes("\n"));
    const events = [user, ...request(streamOf("reasoning", text))];
    const ivs = only(events);
    assert.equal(ivs[0].action, "warn");
    assert.equal(ivs.at(-1)?.action, "abort", "six copies are the grown thought");
    assert.match(ivs[0].summary, /same sentence in other words/);
    assert.notEqual(events[ivs[0].event].t, "end", "caught while the line is still streaming");
    assert.deepEqual(only(events, { sentenceUnits: false }), []);
  });

  it("stays quiet on a long one-line paragraph of varied sentences", () => {
    const text = Array.from({ length: 40 }, (_, i) => prose(16, 500 + i).replace(/\./g, "") + ".").join(" ");
    assert.deepEqual(only([user, ...request(streamOf("reasoning", text))]), []);
  });

  it("stays quiet on paragraphs that share a topic but say new things", () => {
    const text = [
      "I need to check the file LoginForm.tsx first, the onSubmit handler is attached to the form element and calls submit.",
      "The button inside the form has type submit and an onClick that calls submit as well, which explains the double request.",
      "Removing the onClick leaves the native form submit, which also handles the Enter key, so the handler runs once.",
      "I should add a test that presses Enter in the password field and counts the requests sent to the login endpoint.",
    ].join("\n\n");
    assert.deepEqual(only([user, ...request(streamOf("reasoning", text))]), []);
  });

  it("stays quiet on a per-file report with one sentence under different headings", () => {
    const files = ["auth", "billing", "cart", "catalog", "search", "shipping", "users"];
    const text = files.map((f) => `### src/handlers/${f}.ts\n\nNo issues found in ${f}. All awaited calls are inside try/catch blocks and errors are passed on to next().\n\n`).join("");
    assert.deepEqual(only([user, ...request(streamOf("text", text))]), []);
  });

  it("stays quiet on a per-item report in prose: one template, one slot changing", () => {
    const files = ["src/api/users.ts", "src/api/orders.ts", "src/api/cart.ts", "src/api/search.ts", "src/api/billing.ts"];
    const text = files.map((f) => `Updated ${f} to use the new structured logger and removed the old console import.`).join("\n") + "\n";
    assert.deepEqual(only([user, ...request(streamOf("text", text))]), []);
  });

  it("stays quiet on long per-file paragraphs that differ only in the file they name", () => {
    const files = ["src/handlers/auth.ts", "src/handlers/billing.ts", "src/handlers/cart.ts", "src/handlers/catalog.ts"];
    const text = files.map((f) => `${f}: no unhandled promise rejections were found, because every awaited call sits inside a try/catch block and every error is passed on to next() so the error middleware can log it and answer with a 500.`).join("\n\n");
    assert.deepEqual(only([user, ...request(streamOf("text", text))]), []);
  });

  it("catches a long thought repeated with one plain word changed", () => {
    const long = (w: string) => `I think the safest option is to ${w} the retry logic inside the fetch wrapper, since every caller goes through it and the tests for the wrapper already cover timeouts, so nothing else in the code base needs to change for this fix to hold.`;
    const text = ["keep", "put", "place", "move"].map(long).join("\n\n");
    assert.equal(only([user, ...request(streamOf("reasoning", text))]).length, 1);
  });

  it("catches a short thought restated behind different openers", () => {
    const text = [
      "Wait, let me check the LoginForm component again to see where the submit handler is attached, because the form still sends two requests on Enter.",
      "Hmm, let me look at the LoginForm component again to see where the submit handler is attached, since the form still sends two requests on Enter.",
      "Actually, let me check the LoginForm component again to see where the submit handler is attached, because the form still sends two requests on Enter.",
    ].join("\n") + "\n";
    assert.equal(only([user, ...request(streamOf("reasoning", text))]).length, 1);
  });

  it("ignores code blocks, tables and list items", () => {
    const code = "```ts\n" + [1, 2, 3, 4].map((i) => `  const handler${i} = createHandler({ route: '/api/v${i}/items', method: 'GET', retries: 3, timeoutMs: 5000 })`).join("\n") + "\n```\n";
    const table = [1, 2, 3, 4].map((i) => `| handler ${i} | GET | /api/v${i}/items | retries 3 | timeout 5000 ms | cached | logged |`).join("\n") + "\n\n";
    const list = [1, 2, 3, 4].map((i) => `- Handler ${i} serves GET /api/v${i}/items with three retries, a five second timeout and a cache.`).join("\n") + "\n";
    assert.deepEqual(only([user, ...request(streamOf("text", code + table + list))]), []);
  });

  it("stays quiet on long varied reasoning", () => {
    const text = Array.from({ length: 40 }, (_, i) => prose(40, 100 + i)).join("\n\n");
    assert.deepEqual(only([user, ...request(streamOf("reasoning", text))]), []);
  });

  it("compares within one request and one channel", () => {
    const events = [user, ...request(streamOf("reasoning", drifted(1)), streamOf("text", drifted(2))), ...request(streamOf("reasoning", drifted(3)))];
    assert.deepEqual(only(events), []);
  });

  it("fires on the same character whatever the chunking", () => {
    const text = [1, 2, 3, 4].map(drifted).join("\n\n") + "\n\n";
    const ref = [user, ...request(streamOf("reasoning", text, 1))];
    const pos = charRangeOf(ref, only(ref)[0].event)[0];
    for (const size of [2, 40, { max: 40, seed: 5 }]) {
      const events = [user, ...request(streamOf("reasoning", text, size))];
      const [a, b] = charRangeOf(events, only(events)[0].event);
      assert.ok(pos >= a && pos <= b);
    }
  });

  it("can be switched off and tuned", () => {
    const events = [user, ...request(streamOf("reasoning", [1, 2, 3, 4, 5].map(drifted).join("\n\n")))];
    assert.deepEqual(only(events, { enabled: false }), []);
    assert.deepEqual(only(events, { minSimilarity: 0.99, minWordSetSimilarity: 0 }), []);
    assert.deepEqual(only(events, { minCopies: 6 }), []);
  });
});
