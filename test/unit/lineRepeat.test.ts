import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { charRangeOf, prose, request, runOnly, streamOf } from "./streamTestKit";

const only = (events: TraceEvent[], overrides: Record<string, number | boolean> = {}) => runOnly(["line-repeat"], events, overrides);
const user: TraceEvent = { t: "user", text: "go" };
const LINE = "I should re-run the failing test to see whether the handler is still called twice.";

/** Short asides between copies (under minLineChars: nothing new said). */
const filler = (i: number) => ["Hmm.", "Let me think.", "Okay.", "Right, so.", "Wait."][i % 5];

/** A line that keeps coming back between short asides: A x A y A z ... */
function interleaved(n: number, seed = 1): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(LINE, filler(seed + i));
  return out.join("\n") + "\n";
}

describe("line-repeat", () => {
  it("takes a line closing each of several fresh analyses for a report until its fifth copy (Roo's 4x-among-varied case)", () => {
    const analyses = (n: number) => Array.from({ length: n }, (_, i) => `${prose(22, 40 + i)}\n${LINE}\n`).join("");
    assert.deepEqual(only([user, ...request(streamOf("reasoning", analyses(4)))]), []);
    const ivs = only([user, ...request(streamOf("reasoning", analyses(6)))]);
    assert.equal(ivs[0]?.evidence.count, 5);
  });

  it("still catches a returning line at its third copy when what stands between repeats too (A B A B A)", () => {
    const block = `${LINE}\n${prose(14, 7)}\n`;
    assert.equal(only([user, ...request(streamOf("reasoning", block.repeat(4)))])[0]?.evidence.count, 3);
  });

  it("catches a line that keeps coming back between other lines, at its third copy", () => {
    const events = [user, ...request(streamOf("reasoning", interleaved(6)))];
    const ivs = only(events);
    assert.equal(ivs.length, 1);
    assert.equal(ivs[0].action, "abort");
    assert.equal(ivs[0].evidence.count, 3);
    assert.match(ivs[0].evidence.span ?? "", /re-run the failing test/);
    assert.equal(ivs[0].evidence.events.length, 3);
    // fired on the chunk holding the newline that ends the third copy
    const text = interleaved(6);
    const thirdEnd = text.indexOf("\n", text.split(LINE, 3).join(LINE).length + LINE.length);
    const [first, last] = charRangeOf(events, ivs[0].event);
    assert.ok(thirdEnd >= first && thirdEnd <= last);
  });

  it("sees through case, spacing and markdown emphasis", () => {
    const variants = [LINE, LINE.toUpperCase(), "  " + LINE.replace(/ /g, "  "), "**" + LINE + "**  extra".replace("  extra", "")];
    const text = variants.map((v, i) => v + "\n" + filler(i) + "\n").join("");
    assert.equal(only([user, ...request(streamOf("text", text))]).length, 1);
  });

  it("sees through tabs, no-break spaces, blanks at the ends and emphasis next to spaces", () => {
    const words = LINE.split(" ");
    // three copies, each spelled apart: every one must be seen through for the third to count
    const variants = [words.join("\t"), " " + words.join("\u00a0") + " \t", words.map((w) => "`_" + w + "_`").join("  ")];
    const text = variants.map((v, i) => v + "\n" + filler(i) + "\n").join("");
    assert.equal(only([user, ...request(streamOf("text", text))]).length, 1);
    // and keeps apart what differs only inside a word
    const apart = [LINE, LINE.replace("handler", "hand ler"), LINE.replace("twice", "thrice"), LINE.replace("test", "tests")];
    assert.deepEqual(only([user, ...request(streamOf("text", apart.map((v, i) => v + "\n" + filler(i) + "\n").join("")))]), []);
  });

  it("sees through the opener of a restated line (\"Wait,\", \"Hmm, actually\")", () => {
    const text = ["Wait, " + LINE, filler(1), "Hmm, actually " + LINE.toLowerCase(), filler(2), "Okay so " + LINE].join("\n") + "\n";
    assert.equal(only([user, ...request(streamOf("reasoning", text))]).length, 1);
  });

  it("catches a repeated multi-line paragraph", () => {
    const para = "The test still fails on submit.\nThe handler is attached twice.\nI will remove the onClick.\n\n";
    const text = [para, prose(20, 1) + "\n\n", para, prose(20, 2) + "\n\n", para].join("");
    const ivs = only([user, ...request(streamOf("reasoning", text))]);
    assert.equal(ivs.length, 1);
    assert.match(ivs[0].summary, /same paragraph 3 times/);
  });

  it("counts a short sentence said twice on one line, each copy with its opener, as two of its copies", () => {
    // loopgen's rendering: "Hmm, that breaks catalog." over and over, connectors between, two on one line
    const text = "Hmm, that breaks catalog. Hmm, that breaks catalog.\n\nTo be sure:\n\nHmm, that breaks catalog.\n\nActually,\n\nHmm, that breaks catalog.\nHmm, that breaks catalog.\n";
    const ivs = only([user, ...request(streamOf("text", text, { max: 38, seed: 3 }))]);
    assert.equal(ivs[0]?.evidence.count, 4);
    // openers that differ from copy to copy on the one line
    const mixed = "Wait, still the same. Still the same. So still the same.\nHmm.\nStill the same.\n";
    assert.equal(only([user, ...request(streamOf("reasoning", mixed))])[0]?.evidence.count, 4);
    // a line of two different short sentences is no copy of either
    assert.deepEqual(only([user, ...request(streamOf("text", "The build passes. The lint passes.\nOkay.\nThe build passes.\nThe tests pass.\nThe build passes.\n"))]), []);
  });

  it("ignores short lines, code, tables and dividers", () => {
    const text = [
      // a short line said before each new step is a habit, not a chant
      ...[1, 2, 3, 4].flatMap((i) => ["Let me check.", prose(14, 40 + i)]),
      "```ts", ...Array(6).fill("  expect(parseRow(row)).toEqual(expectedFieldsForTheRow);"), "```",
      ...Array(5).fill("| handler | status | notes about the handler and its status |"),
      ...Array(5).fill("----------------------------------------------------------"),
    ].join("\n") + "\n";
    assert.deepEqual(only([user, ...request(streamOf("text", text))]), []);
  });

  it("ignores code drafted in thinking without a fence", () => {
    const text = [
      "I'll draft the test first.",
      "    expect(screen.getByRole('button', { name: 'Save' })).toBeInTheDocument();",
      "fireEvent.click(screen.getByRole('button', { name: 'Save' }));",
      "    expect(screen.getByRole('button', { name: 'Save' })).toBeInTheDocument();",
      "fireEvent.click(screen.getByRole('button', { name: 'Save' }));",
      "    expect(screen.getByRole('button', { name: 'Save' })).toBeInTheDocument();",
      "fireEvent.click(screen.getByRole('button', { name: 'Save' }));",
    ].join("\n") + "\n";
    assert.deepEqual(only([user, ...request(streamOf("reasoning", text))]), []);
  });

  it("treats numbered headings as one section: a loop that numbers its copies is still a loop", () => {
    const text = [1, 2, 3].map((i) => `### Attempt ${i}\n\n${LINE}\n\n`).join("");
    assert.equal(only([user, ...request(streamOf("reasoning", text))]).length, 1);
  });

  it("stays quiet on a per-file report that repeats one sentence under different headings", () => {
    const files = ["auth", "billing", "cart", "catalog", "search", "shipping", "users"];
    const text = files.map((f) => `### src/handlers/${f}.ts\n\nNo issues found. All awaited calls are inside try/catch and errors are passed to next().\n\n`).join("");
    assert.deepEqual(only([user, ...request(streamOf("text", text))]), []);
    // ...but under one and the same heading it is a loop.
    const same = files.map(() => `### src/handlers/auth.ts\n\nNo issues found. All awaited calls are inside try/catch and errors are passed to next().\n\n`).join("");
    assert.equal(only([user, ...request(streamOf("text", same))]).length, 1);
  });

  it("stays quiet on a per-file report under short label lines (\"auth.ts:\")", () => {
    const text = ["auth", "billing", "cart", "catalog", "search"].map((f) => `src/handlers/${f}.ts:\nNo issues found. All awaited calls are inside try/catch and errors are passed to next().\n\n`).join("");
    assert.deepEqual(only([user, ...request(streamOf("text", text))]), []);
  });

  it("stays quiet on one note nested under each item of a list", () => {
    const text = ["auth", "billing", "cart", "catalog"].map((f) => `- src/handlers/${f}.ts\n  - No issues found. All awaited calls are inside try/catch blocks.\n`).join("");
    assert.deepEqual(only([user, ...request(streamOf("text", text))]), []);
  });

  it("stays quiet when steps are re-traced in new numbered lists", () => {
    const trace = (c: string) => `Let me trace the ${c} case:\n1. \`get_order_dir('-pk', 'ASC')\` returns \`('pk', 'DESC')\`\n2. \`descending = True\` (because order == 'DESC')\n3. ${prose(8, c.length)}\n\n`;
    assert.deepEqual(only([user, ...request(streamOf("text", trace("first") + trace("foreign key") + trace("inheritance")))]), []);
  });

  it("catches the same item again and again in one numbered list", () => {
    const text = "Summary:\n" + [1, 2, 3, 4, 5].map((i) => `${i}. I have added all the requested logs and verified the test file.\n`).join("");
    const ivs = only([user, ...request(streamOf("text", text))]);
    assert.equal(ivs.length, 1);
    assert.equal(ivs[0].evidence.count, 3);
  });

  it("reports a looping block once per request, not once per line of it", () => {
    const block = ["The onSubmit handler is attached to the form and also to the button.", "That is why the request is sent twice when the user presses Enter.", "I will remove the onClick handler from the button to fix it."].join("\n") + "\n";
    const ivs = only([user, ...request(streamOf("reasoning", block.repeat(5)))]);
    assert.equal(ivs.length, 1);
    assert.equal(ivs[0].action, "abort");
  });

  it("counts per request: one copy in each of three requests is not a loop here", () => {
    const events = [user, ...request(streamOf("reasoning", LINE + "\n")), ...request(streamOf("reasoning", LINE + "\n")), ...request(streamOf("reasoning", LINE + "\n"))];
    assert.deepEqual(only(events), []);
  });

  it("counts the last line even without a final newline", () => {
    const text = `${LINE}\nfirst\n${LINE}\nsecond\n${LINE}`;
    const events = [user, ...request(streamOf("text", text))];
    const ivs = only(events);
    assert.equal(ivs.length, 1);
    // at the end, or with the chunk that ends the line on its stop (judged as it stands)
    const lastChunk = events.length - 2;
    assert.ok(ivs[0].event === lastChunk + 1 || (ivs[0].event === lastChunk && /[.!?]$/.test(text)), `fired at ${ivs[0].event}`);
  });

  it("fires on the same character whatever the chunking", () => {
    const text = interleaved(5, 9);
    const ref = only([user, ...request(streamOf("text", text, 1))]);
    const refEvents = [user, ...request(streamOf("text", text, 1))];
    const pos = charRangeOf(refEvents, ref[0].event)[0];
    for (const size of [3, 40, { max: 40, seed: 3 }, { max: 12, seed: 4 }]) {
      const events = [user, ...request(streamOf("text", text, size))];
      const ivs = only(events);
      assert.equal(ivs.length, 1);
      const [a, b] = charRangeOf(events, ivs[0].event);
      assert.ok(pos >= a && pos <= b, `${JSON.stringify(size)}: ${a}-${b} misses ${pos}`);
    }
  });

  it("can be switched off and tuned", () => {
    const events = [user, ...request(streamOf("reasoning", interleaved(6)))];
    assert.deepEqual(only(events, { enabled: false }), []);
    assert.deepEqual(only(events, { minCopies: 7 }), []);
    assert.deepEqual(only(events, { minLineChars: 200, shortLineGapChars: 0 }), []);
    // a broken value falls back to the default instead of breaking the session
    assert.equal(only(events, { minCopies: Number.NaN, minLineChars: -5 }).length, 1);
  });
});

describe("item labels", () => {
  it("reads a bare path or a short phrase ending in a colon as the label of the item that follows", async () => {
    const { isItemLabel } = await import("../../src/engine/streamText");
    for (const l of ["1. lib/jobs/mail.js", "- `src/app.ts`", "**package.json**", "Files changed:", "3) README.md", "**Summary:**", "- `src/app.ts`:", "  docs/guide.md  "]) assert.ok(isItemLabel(l), l);
    for (const l of ["I should re-run the failing test to see whether it passes.", "1. Fix the bug in the parser", "Done.", "e.g."]) assert.ok(!isItemLabel(l), l);
  });

  it("keeps the same verdict sentence under numbered file labels apart (a per-file report)", () => {
    const verdict = "No problems found. Every async call is wrapped in try/catch and errors are logged through ctx.log.error.";
    const report = ["mail", "export", "cleanup", "billing", "index", "resize"].map((f, i) => `${i + 1}. lib/jobs/${f}.js\n${verdict}\n\n`).join("");
    assert.deepEqual(only([user, ...request(streamOf("text", report))]), []);
    // the same sentence with no labels between is still caught
    assert.equal(only([user, ...request(streamOf("text", report.replace(/\d+\. lib\/jobs\/\w+\.js\n/g, "Hmm.\n")))]).length, 1);
  });
});

describe("labels heading edit blocks", () => {
  it("does not count a file path written above each of several edit blocks", () => {
    const path = "sympy/printing/pretty/tests/test_pretty_printing_module.py";
    const text = [1, 2, 3, 4].map((i) => `${path}\n\`\`\`python\n<<<<<<< SEARCH\nold_${i}()\n=======\nnew_${i}()\n>>>>>>> REPLACE\n\`\`\`\n`).join("\n");
    assert.deepEqual(only([user, ...request(streamOf("text", text))]), []);
  });
});
