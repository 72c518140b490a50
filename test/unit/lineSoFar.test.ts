/**
 * A line judged as it stands when a chunk ends on its sentence's stop: a thought that ends its line
 * is caught with the chunk holding its last character, not one chunk later with the newline (or the
 * request's end). The line is still counted once, whole, at its newline; a stop that only looks
 * like a sentence's end (a decimal, a version, an abbreviation) judges nothing.
 */
import * as assert from "node:assert/strict";
import type { TraceEvent } from "../../src/engine/events";
import { StreamLines, type StreamLine } from "../../src/engine/streamText";
import { repeatedSentence } from "../../src/engine/detectors/lineRepeat";
import { runOnly } from "./streamTestKit";

/** The lines reported so far (text and id) for these chunks, and the ids of the whole lines. */
function soFar(parts: string[]): { soFar: Array<[string, number]>; whole: Array<[string, number]> } {
  const lines = new StreamLines();
  const out = { soFar: [] as Array<[string, number]>, whole: [] as Array<[string, number]> };
  parts.forEach((c, i) => lines.push("reasoning", c, i, (l: StreamLine) => out.whole.push([l.text, l.id!]), undefined, undefined, (l) => out.soFar.push([l.text, l.id!])));
  lines.flush(parts.length, (l) => out.whole.push([l.text, l.id!]));
  return out;
}

/** Events of one request: each part one chunk, so a test says exactly where chunks end. */
function chunked(channel: "reasoning" | "text", parts: string[]): TraceEvent[] {
  return [{ t: "user", text: "Fix the empty batch handling." }, { t: "request" }, ...parts.map((delta): TraceEvent => ({ t: channel, delta })), { t: "end" }];
}

/** The index of the event holding the end of `needle`'s last copy. */
function eventOfEnd(events: TraceEvent[], needle: string): number {
  let text = "", at = -1;
  const ends: number[] = [];
  events.forEach((e, i) => { if (e.t === "reasoning" || e.t === "text") { text += e.delta; ends.push(i); for (let k = 0; k < e.delta.length; k++) ends[text.length - e.delta.length + k] = i; } });
  at = text.lastIndexOf(needle) + needle.length - 1;
  return ends[at];
}

describe("a line judged at its sentence's stop", () => {
  it("the splitter gives the line so far when a chunk ends on a stop after a word, with the id its whole line will have", () => {
    const r = soFar(["Intro line.\nThe handler returns early", " when the list is empty.", "\n", "Next one!", "\n你好世界。", "\n"]);
    assert.deepEqual(r.soFar.map((x) => x[0]), ["The handler returns early when the list is empty.", "Next one!", "你好世界。"]);
    const whole = new Map(r.whole.map(([t, id]) => [t, id]));
    for (const [text, id] of r.soFar) assert.equal(whole.get(text), id, `same id for ${text}`);
  });

  it("a decimal, a version, an abbreviation, a list item, code, a heading or a long line are not judged at a stop", () => {
    const r = soFar([
      "The value is 3.", "14 here.\n", "Bump it to v1.", "2 now.\n", "Use a guard, e.g.", " a check.\n", "Ask the U.S.", " team.\n",
      "- a list item that ends.", "\n", "```\n", "return value.", "\n```\n", "# A heading.", "\n",
      "A long line ".repeat(52) + "ends past the bound.", "\n",
    ]);
    assert.deepEqual(r.soFar, []);
    assert.equal(r.whole.length, 10);
  });

  it("gives a line at the stops inside a chunk too, again each time it doubled, up to 600 characters", () => {
    // one chunk of many sentences (a host that writes whole paragraphs at once): judged at its stops as
    // a stream of small chunks ending on them would be, not only at the chunk's end
    const sentence = "The handler returns early when the list is empty.";
    const r = soFar([Array(16).fill(sentence).join(" ") + " And more", "\n"]);
    const lengths = r.soFar.map((x) => x[0].length);
    assert.ok(lengths.length >= 3, `judged at several stops (${lengths})`);
    assert.equal(lengths[0], sentence.length, "first at the first stop");
    for (let k = 1; k < lengths.length; k++) assert.ok(lengths[k] >= 2 * lengths[k - 1], `doubled each time (${lengths})`);
    assert.ok(lengths.every((n) => n < 600), "not past 600 characters");
    for (const [text] of r.soFar) assert.ok(text.endsWith("empty."), "cut at a stop");
  });

  it("gives a line again only once it grew by a quarter since: a line costs a bounded multiple of its length", () => {
    const first = "The handler returns early when the list is empty and skips the default.";
    const r = soFar([first, " Yes.", " It does.", " So the default is never applied to the empty batch at all.", "\n"]);
    assert.deepEqual(r.soFar.map((x) => x[0].length), [first.length, (first + " Yes. It does. So the default is never applied to the empty batch at all.").length]);
  });

  it("is neither joined nor given when no reader has anything of the channel to compare it with", () => {
    const lines = new StreamLines();
    const asked: string[] = [], given: string[] = [];
    lines.wantsLineSoFar = (channel) => { asked.push(channel); return channel === "text"; };
    for (const channel of ["reasoning", "text"] as const) lines.push(channel, "The handler returns early when the list is empty.", 0, () => {}, undefined, undefined, (l) => given.push(l.channel));
    assert.deepEqual(asked, ["reasoning", "text"]);
    assert.deepEqual(given, ["text"]);
  });

  describe("near-duplicate", () => {
    const copies = [
      "The issue lies in how encodeEntry processes an empty batch: it gives back nothing instead of an empty collection.",
      "The issue lies in how encodeEntry handles an empty batch: it returns nothing instead of an empty collection here.",
      "The problem lies in how encodeEntry processes an empty batch: it hands back nothing rather than an empty collection.",
    ];

    it("catches the third rewording with the chunk that ends it, before its newline comes", () => {
      const parts = ["Looking at the batch code.\n\n", copies[0], "\n\n", copies[1], "\n\n", copies[2].slice(0, 50), copies[2].slice(50), "\n\nSo I will add a guard.\n"];
      const events = chunked("reasoning", parts);
      const ivs = runOnly(["near-duplicate"], events);
      assert.equal(ivs.length, 1);
      assert.equal(ivs[0].event, eventOfEnd(events, copies[2]), "caught with the chunk holding the third copy's stop");
    });

    it("catches the rewordings that close a long line with the chunk that ends the last one", () => {
      // two earlier lines, then a line of 200+ characters holding two more rewordings (its sentences are units of their own, the line too)
      const parts = ["Looking at the batch code.\n\n", copies[0], "\n\n", copies[1], "\n\n", copies[2].slice(0, 40), copies[2].slice(40) + " " + copies[1].slice(0, 60), copies[1].slice(60), "\n\nSo I will add a guard.\n"];
      const events = chunked("reasoning", parts);
      const ivs = runOnly(["near-duplicate"], events);
      assert.equal(ivs.length, 1);
      assert.ok(ivs[0].event <= 9, `caught by the chunk that ends the line's last sentence (at ${ivs[0].event})`);
    });

    it("catches a rewording that ends inside a chunk and goes on in the same line, with that chunk", () => {
      // the third copy opens a line that then says more; its stop falls inside a chunk, not at a chunk's end
      const rest = " Then again I keep coming back to whether the batch code should even be called here at all.";
      const third = copies[2] + rest;
      const cut = copies[2].length + 12;
      const parts = ["Looking at the batch code.\n\n", copies[0], "\n\n", copies[1], "\n\n", third.slice(0, 30), third.slice(30, cut), third.slice(cut), "\n\nSo I will add a guard.\n"];
      const events = chunked("reasoning", parts);
      const ivs = runOnly(["near-duplicate"], events);
      assert.equal(ivs.length, 1);
      assert.equal(ivs[0].event, eventOfEnd(events, copies[2]), "caught with the chunk holding the third copy's stop");
    });

    it("a line judged at its stop and again at its newline is one copy: two copies are no loop", () => {
      const parts = ["Looking at the batch code.\n\n", copies[0], "\n\n", copies[1], "\n\nSo I will add a guard.\n"];
      assert.deepEqual(runOnly(["near-duplicate"], chunked("reasoning", parts)), []);
    });

    it("a line that goes on after a stop is judged whole: what its first sentence said before is not counted twice", () => {
      // each line opens with the same long sentence, then says something new: judged whole, not as the opening
      const opening = "I re-ran the full test suite on the branch after the last change to the parser and the lexer.";
      const news = ["Two tests in the date module now fail on the timezone offset.", "The date tests pass now; the CSV export test fails on quoting.", "Everything passes, so I will commit and open the pull request."];
      const parts = news.flatMap((n) => [opening, " " + n, "\n\n"]);
      assert.deepEqual(runOnly(["near-duplicate"], chunked("reasoning", parts)), []);
    });
  });

  describe("line-repeat", () => {
    const LINE = "The cleanest fix is to validate the input once at the entry point.";

    it("catches the third copy of a line with the chunk that ends it", () => {
      const parts = [LINE, "\n\nRight.\n\n", LINE, "\n\nTo be sure:\n\n", LINE.slice(0, 30), LINE.slice(30), "\n\nActually, more.\n"];
      const events = chunked("text", parts);
      const ivs = runOnly(["line-repeat"], events);
      assert.equal(ivs.length, 1);
      assert.equal(ivs[0].event, 7, "the chunk that ends the third copy");
    });

    it("catches a copy at its stop however its case, emphasis and spacing differ from the copies before", () => {
      // the line so far is let go by its raw end before it is normalised: that end is compared as normalised
      const first = "**The cleanest fix** is to  validate the input once at the entry point.";
      const second = "The cleanest fix is to validate the input once at the Entry Point.";
      const third = "the CLEANEST fix is to validate the input once at the ENTRY POINT.";
      const parts = [first, "\n\nRight.\n\n", second, "\n\nTo be sure:\n\n", third.slice(0, 30), third.slice(30), "\n\nActually, more.\n"];
      const ivs = runOnly(["line-repeat"], chunked("text", parts));
      assert.equal(ivs.length, 1);
      assert.equal(ivs[0].event, 7, "the chunk that ends the third copy");
    });

    it("counts each line once: two copies judged at their stops and newlines are no loop", () => {
      const parts = [LINE, "\n\nRight.\n\n", LINE, "\n\nDone.\n"];
      assert.deepEqual(runOnly(["line-repeat"], chunked("text", parts)), []);
    });

    it("a stop inside a number does not end a line early: a longer line opening like an earlier one is another line", () => {
      const short = "The result now matches what the spec says for version 1.";
      const parts = [short, "\n\n", short, "\n\n", short, "2 of the format, which adds the flag.\n"];
      // without the guard the third line, cut at "version 1.", would read as a third copy
      assert.deepEqual(runOnly(["line-repeat"], chunked("text", parts)), []);
    });

    it("counts a sentence said twice on one line as two copies", () => {
      const parts = [LINE + "\n\nRight.\n\n", LINE + " " + LINE + "\n\nTo be sure:\n\n"];
      const events = chunked("text", parts);
      const ivs = runOnly(["line-repeat"], events);
      assert.equal(ivs.length, 1);
      assert.equal(ivs[0].event, 3, "the third copy of the sentence, on the second line");
      assert.equal(ivs[0].evidence.count, 3);
    });

    it("a line of two different sentences, or one said once, is no repetition", () => {
      assert.equal(repeatedSentence("the cleanest fix is to validate it. the cleanest fix is to validate me.", 20), undefined);
      assert.equal(repeatedSentence("the cleanest fix is to validate it once.", 20), undefined);
      assert.deepEqual(repeatedSentence("the fix is to validate it once. the fix is to validate it once. the fix is to validate it once.", 20), { sentence: "the fix is to validate it once.", times: 3 });
      const parts = ["We checked the parser module and found nothing wrong. We checked the lexer module and found nothing wrong.\n", "Done.\n"];
      assert.deepEqual(runOnly(["line-repeat"], chunked("text", parts)), []);
    });
  });
});
