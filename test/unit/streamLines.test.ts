/**
 * The shared stream splitter: the lines, paragraphs and sentences of a stream do not depend on
 * how it was chunked (a sentence may end in one chunk and its space arrive in the next).
 */
import * as assert from "node:assert/strict";
import { StreamLines, normalizeLine, type StreamChannel, type StreamLine } from "../../src/engine/streamText";
import { classifyLine } from "../../src/engine/structure";
import { chunks, prose } from "./streamTestKit";

/** Everything the splitter reports for `text` cut into `size` chunks, without the event numbers. */
function split(text: string, size: number | { max: number; seed: number }, maxLineChars?: number): string[] {
  const lines = new StreamLines(maxLineChars);
  const out: string[] = [];
  const onLine = (l: { channel: StreamChannel; text: string; kind: string; section: string; list: number; parent: string; continuation?: boolean }) =>
    out.push(`line ${JSON.stringify([l.channel, l.text, l.kind, l.section, l.list, l.parent, l.continuation === true])}`);
  const onParagraph = (p: { text: string; section: string; lines: unknown[] }) => out.push(`paragraph ${JSON.stringify([p.text, p.section, p.lines.length])}`);
  const onSentence = (s: { text: string; lineHead: string; section: string }) => out.push(`sentence ${JSON.stringify([s.text, s.lineHead, s.section])}`);
  chunks(text, size).forEach((c, i) => lines.push("reasoning", c, i, onLine, onParagraph, onSentence));
  lines.flush(-1, onLine, onParagraph);
  return out;
}

const LONG_LINE = "First I read the config loader. It keeps the parsed file in a module cache! Does the watcher clear it?\tIt does not. " + prose(60, 3) + " Then the tests. " + prose(40, 4);
const TEXT = [
  "## Plan",
  LONG_LINE,
  "Short line. Another short one.",
  "- " + prose(50, 5) + ". A list item is no prose line. " + prose(20, 6),
  "",
  "```ts",
  "const a = 1; // " + prose(50, 7) + ". Code has no sentences. " + prose(20, 8),
  "```",
  "Wrapped paragraph line one. It goes on",
  "and ends here. " + prose(45, 9) + ". Last sentence of the paragraph.",
  prose(120, 10),
].join("\n");

describe("stream lines", () => {
  it("reports the same lines, paragraphs and sentences however the stream is chunked", () => {
    for (const maxLineChars of [undefined, 300]) {
      const whole = split(TEXT, TEXT.length, maxLineChars);
      assert.ok(whole.filter((x) => x.startsWith("sentence")).length >= 4, "long prose lines give sentences");
      for (const size of [1, 2, 7, 40, { max: 40, seed: 3 }, { max: 12, seed: 11 }]) assert.deepEqual(split(TEXT, size, maxLineChars), whole, `${JSON.stringify(size)} / ${maxLineChars}`);
    }
  });

  it("cuts a long prose line at every stop and space, its first sentences too once it proves long, each with the line's head", () => {
    for (const size of [1, 5, { max: 40, seed: 2 }]) {
      const sentences = split(LONG_LINE + "\n", size).filter((x) => x.startsWith("sentence")).map((x) => JSON.parse(x.slice("sentence ".length)) as string[]);
      assert.deepEqual(sentences.slice(0, 4).map((s) => s[0]), ["First I read the config loader.", "It keeps the parsed file in a module cache!", "Does the watcher clear it?", "It does not."]);
      // every piece before a stop and a space, the unfinished last one aside
      assert.deepEqual(sentences.map((s) => s[0]), LONG_LINE.split(/(?<=[.!?])[ \t]/).slice(0, -1), JSON.stringify(size));
      for (const s of sentences) assert.equal(s[1], LONG_LINE.slice(0, 80));
    }
  });

  it("names the line each sentence sits in and where: the line's text there, followed by the space or tab that ended it", () => {
    // many stops early in a line, past the early starts kept, and lines cut to maxLineChars
    const crowded = "A. ".repeat(40) + prose(60, 12);
    const text = [LONG_LINE, crowded, "Short line. Another short one.", prose(90, 13), LONG_LINE].join("\n");
    for (const maxLineChars of [undefined, 300]) for (const size of [1, 7, { max: 40, seed: 5 }]) {
      const lines = new StreamLines(maxLineChars);
      const seen: Array<{ line: number; at: number; text: string }> = [];
      let checked = 0;
      const ids = new Set<number>();
      const onLine = (l: { text: string; id?: number }) => {
        assert.ok(l.id !== undefined && !ids.has(l.id));
        ids.add(l.id);
        for (const x of seen.filter((x) => x.line === l.id)) {
          assert.equal(l.text.slice(x.at, x.at + x.text.length), x.text);
          assert.match(l.text[x.at + x.text.length], /[ \t]/);
          checked++;
        }
      };
      chunks(text, size).forEach((c, i) => lines.push("reasoning", c, i, onLine, undefined, (x) => seen.push(x)));
      lines.flush(-1, onLine);
      assert.ok(checked === seen.length && checked >= 20, `${checked} of ${seen.length}`);
    }
  });

  it("gives the next request's first line another id than the unfinished line a new request dropped", () => {
    const lines = new StreamLines();
    const sentenceLines = new Set<number>();
    const lineIds: number[] = [];
    // a long line whose sentences are read, cut off by the request's end (not flushed: dropped)
    for (const c of chunks(LONG_LINE, 7)) lines.push("reasoning", c, 0, () => assert.fail("no line ends"), undefined, (x) => sentenceLines.add(x.line));
    assert.ok(sentenceLines.size === 1);
    lines.reset();
    for (const c of chunks(LONG_LINE + "\n", 7)) lines.push("reasoning", c, 1, (l) => lineIds.push(l.id!), undefined, () => {});
    assert.equal(lineIds.length, 1);
    assert.ok(!sentenceLines.has(lineIds[0]), "a line of the new request took the dropped line's id: its sentences' words would be taken for it");
  });

  it("gives no sentences for code, list items or short lines", () => {
    const text = ["- " + prose(80, 1), "    " + prose(80, 2), "Short. Lines. Only."].join("\n") + "\n";
    assert.deepEqual(split(text, { max: 40, seed: 5 }).filter((x) => x.startsWith("sentence")), []);
  });

  it("counts letters by code point and whitespace as trim does when classifying", () => {
    const cases: Array<[string, string]> = [
      ["😀😀😀😀", "divider"], ["abc😀😀😀😀😀😀😀😀😀😀", "prose"], ["—— · ——", "divider"], ["数据模型配置文件。", "prose"], ["Ünïcödé wörds hére, ok", "prose"],
      ["a\u00a0=\u00a0b;", "code"], ["|\u3000a\u3000|\u3000b\u3000|", "table"], ["const f = async () =>", "code"], ["Done (see notes.)", "prose"], ["f(a); g(b); h(c);", "code"],
    ];
    for (const [line, kind] of cases) assert.equal(classifyLine(line), kind, JSON.stringify(line));
  });

  it("marks a line plain only when normalising it needs no replace, and counts a plain line's words as splitting it does", () => {
    const pieces = ["word", "Word", " ", " ", " ", "  ", "\t", "\u00a0", "\u2003", "*", "_", "`", "- ", "1. ", "é", "İ", "\ud83d\ude00", ".", ":", "|", "#"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let plain = 0, other = 0;
    for (let n = 0; n < 3000; n++) {
      let text = "";
      for (let k = Math.floor(next() * 16); k > 0; k--) text += pieces[Math.floor(next() * pieces.length)];
      const got: StreamLine[] = [];
      const lines = new StreamLines();
      lines.push("text", text + "\n", 0, (l) => got.push(l));
      const line = got[0];
      if (line.plain !== true) { other++; assert.equal(line.words, undefined); continue; }
      plain++;
      assert.equal(normalizeLine(line.text, true), normalizeLine(line.text), JSON.stringify(line.text));
      assert.equal(line.words, line.text.trim().split(/\s+/).length, JSON.stringify(line.text));
    }
    // the random lines hold both kinds, so each assertion above was reached
    assert.ok(plain > 100 && other > 100, `${plain} plain, ${other} not`);
  });

  it("starts each request afresh, and flushes its channels in the order they first came in it", () => {
    const lines = new StreamLines();
    const out: string[] = [];
    const onLine = (l: { channel: StreamChannel; text: string; kind: string; section: string }) => out.push(`${l.channel} ${l.text} ${l.kind} ${l.section}`);
    // a request cut off mid-line and mid-fence, on both channels, never flushed
    lines.push("reasoning", "## Old heading\n```\nhalf a li", 0, onLine);
    lines.push("text", "- an item with no end", 1, onLine);
    lines.reset();
    out.length = 0;
    lines.push("text", "New answer line", 2, onLine);
    lines.push("reasoning", "New thought", 3, onLine);
    lines.flush(4, onLine);
    assert.deepEqual(out, ["text New answer line prose ", "reasoning New thought prose "]);
  });
});
