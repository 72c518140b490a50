import * as assert from "node:assert/strict";
import { stripOpeners } from "../../src/engine/streamText";
import { WordTable, countWords, idsFrom, jaccard, shingles, sortedJaccard, textKey, wordsKey, wordsOf } from "../../src/engine/words";

/** Texts built from pieces that sit on the edges of a word: case, joiners, digits, non-ASCII letters and apostrophes. */
function texts(count: number): string[] {
  const pieces = ["a", "B", "z", "Q", "0", "9", "_", "'", ".", "-", " ", " ", "\n", ",", ":", "é", "’", "K", "İ", "ß", "x", "`", "*", "—", "Config", "v1.2", "it's", "re-run", "src/a.ts"];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: string[] = [];
  for (let t = 0; t < count; t++) {
    // most text is plain ASCII: three texts in five keep to the first pieces
    const from = next() < 0.6 ? 14 : pieces.length;
    let s = "";
    const n = Math.floor(next() * 50);
    for (let i = 0; i < n; i++) s += pieces[Math.floor(next() * from)];
    out.push(s);
  }
  return out;
}

const wordsFrom = (table: WordTable, ids: readonly number[]) => ids.map((id) => table.word(id));

describe("WordTable (near-duplicate's word ids)", () => {
  it("reads the words wordsOf reads, for any cap, ASCII or not", () => {
    const table = new WordTable();
    for (const text of texts(4000)) {
      for (const max of [600, Infinity, 0, 1, 3, 12, 2.5]) {
        assert.deepEqual(wordsFrom(table, table.idsOf(text, max)), wordsOf(text, max), JSON.stringify({ text, max }));
        assert.equal(countWords(text, max), wordsOf(text, max).length, JSON.stringify({ text, max }));
      }
    }
    const long = "Alpha beta-gamma it's x.y ".repeat(400) + "é";
    for (const max of [1, 7, 300]) assert.deepEqual(wordsFrom(table, table.idsOf(long, max)), wordsOf(long, max));
  });

  it("reads and counts any script as wordsOf does (letters, digits, joiners, case), or leaves to it what it cannot read alike", () => {
    // pools of characters on the edges of WORD and of toLowerCase: other scripts, combining marks and
    // joiners (not word characters), astral characters and lone surrogates, letters whose lowercase is
    // longer (İ), depends on what follows (Σ), is ASCII (K, the Kelvin sign) or titlecase (ǅ)
    const pools = ["abcXYZ019_", " \t\n.,;:!?'-\"()`*#/", "—–’‘“”…→•«»", "éèÉÈçÇñÑßẞøØœŒ", "İıIiŞşĞğ", "ΣσςΑΒαβΟΔ", "абвАБВЁё", "中文漢字かなカナ한국어", "\u0301\u0308\u200d\u200c\ufe0f", "٠١٢٣ⅠⅡⅣ½²", "😀𝔘𝔫𝐀𐐀𐐨", "\u212a\u2126\u0149\u01c4\u01c5\u01c6\u1f88\u1fbc\u0345", "\ud800x\udc00"].map((p) => Array.from(p));
    let seed = 11;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    const table = new WordTable();
    let read = 0;
    for (let t = 0; t < 6000; t++) {
      const mix = [0, 0, 0, 1, 1, next(pools.length), next(pools.length)];
      let text = "";
      for (let n = next(120); text.length < n; ) { const pool = pools[mix[next(mix.length)]]; text += pool[next(pool.length)]; }
      for (const max of [Infinity, 300, 5, 1]) assert.deepEqual(wordsFrom(table, table.idsOf(text, max)), wordsOf(text, max), JSON.stringify({ text, max }));
      for (const max of [Infinity, 12, 2, 0, 2.5]) assert.equal(countWords(text, max), wordsOf(text, max).length, JSON.stringify({ text, max }));
      // read in two pieces, cut after a space (as a line's sentences are), then from a cut
      const space = text.indexOf(" ", next(text.length + 1));
      const cut = space < 0 ? text.length : space + 1;
      const ids: number[] = [], starts: number[] = [];
      const first = table.scanWords(text, 0, cut, 0, ids, starts, 0, Infinity);
      const count = first < 0 ? -1 : table.scanWords(text, cut, text.length, 0, ids, starts, first, Infinity);
      if (count < 0) continue;
      read++;
      assert.deepEqual(wordsFrom(table, ids.slice(0, count)), wordsOf(text, Infinity), JSON.stringify({ text, cut }));
      const at = next(text.length + 1), got = idsFrom(text, at, 300, ids, starts, 0, count, 0);
      if (got) assert.deepEqual(wordsFrom(table, got), wordsOf(text.slice(at), 300), JSON.stringify({ text, at }));
    }
    // most such text is read by the scan, not the regex
    assert.ok(read > 3000, String(read));
  });

  it("gives one id per distinct word, whatever its case", () => {
    const table = new WordTable();
    const [a, b] = [table.idsOf("The config Loader", 10), table.idsOf("the CONFIG loader config", 10)];
    assert.deepEqual(b.slice(0, 3), a);
    assert.equal(b[3], a[1]);
    assert.notEqual(a[0], a[1]);
  });

  it("makes the shingles shingles() makes, and their Jaccard", () => {
    const table = new WordTable();
    const all = texts(600);
    for (let i = 1; i < all.length; i++) {
      const [x, y] = [wordsOf(all[i - 1]), wordsOf(all[i] + " " + all[i - 1].slice(5))];
      for (const n of [2, 3]) {
        const [a, b] = [table.shingles(table.idsOf(x.join(" "), Infinity), n), table.shingles(table.idsOf(y.join(" "), Infinity), n)];
        assert.deepEqual(a, [...shingles(x, n)].sort((p, q) => p - q));
        assert.equal(sortedJaccard(a, b), jaccard(shingles(x, n), shingles(y, n)));
      }
    }
  });

  it("reads a text's words once for its pieces: the words after a cut are the cut text's, or it says it cannot tell", () => {
    const table = new WordTable();
    let told = 0, untold = 0;
    const all = [...texts(1500), "So-called retries fail. Wait, so the cache. Hmm—actually no", "so's the thing", "Okay.then it's x", "Now.the end"];
    for (const text of all) {
      const ids: number[] = [], starts: number[] = [];
      // read after something already read, with its starts offset as a sentence's in its line
      ids.push(-1, -1); starts.push(-1, -1);
      const count = table.scanWords(text, 0, text.length, 100, ids, starts, 2, Infinity);
      // İ lowercases to two characters: only the regex reads text with it
      if (text.includes("İ")) { assert.equal(count, -1, text); continue; }
      assert.deepEqual(wordsFrom(table, ids.slice(2, count)), wordsOf(text, Infinity), text);
      assert.deepEqual(starts.slice(2, count).map((s) => s - 100), [...text.toLowerCase().matchAll(/[\p{L}\p{N}_]+(?:['’.-][\p{L}\p{N}_]+)*/gu)].map((m) => m.index), text);
      const cuts = new Set([text.length - stripOpeners(text).length, ...Array.from({ length: text.length + 1 }, (_, i) => i)]);
      for (const cut of cuts) for (const max of [300, 2, 0]) {
        const got = idsFrom(text, cut, max, ids, starts, 2, count, 100);
        if (got === undefined) {
          // a cut just after a space or before one is between words: that it tells (unless idsOf would cut the text short)
          if (max === 300) assert.ok(!/[ ,:]/.test(text[cut - 1] ?? "") && !/[ ,:]/.test(text[cut] ?? ""), JSON.stringify({ text, cut }));
          untold++;
          continue;
        }
        told++;
        assert.deepEqual(got, table.idsOf(text.slice(cut), max), JSON.stringify({ text, cut, max }));
      }
    }
    assert.ok(told > 0 && untold > 0);
    // a word run across the cut ("so-called" cut after "so-") is not told
    assert.equal(idsFrom("so-called x", 3, 300, table.idsOf("so-called x", 300), [0, 10], 0, 2, 0), undefined);
  });

  it("strips openers as the opener pattern alone does, though it tries the pattern only on texts opening with an opener's letter", () => {
    const pattern = /^(?:(?:wait|hmm+|actually|ok(?:ay)?|alright|so|but|now|well|oh|right|again|also|and|then)\b[\s,.:;!—-]*)+/i;
    const reference = (text: string) => {
      const t = text.trimStart();
      const m = pattern.exec(t);
      return m && m[0].length < t.length ? t.slice(m[0].length) : t;
    };
    const openers = ["Wait,", "HMMM", "actually", "Okay.", "ALRIGHT", "so-called", "But", "now:", "Well —", "oh", "Right!", "again", "Also", "and", "Then", "ſo", "Ｗait", "the", "x"];
    let stripped = 0;
    for (const text of texts(800)) {
      for (const opener of ["", ...openers]) {
        for (const x of [opener + " " + text, "  " + opener + text, opener]) {
          assert.equal(stripOpeners(x), reference(x), JSON.stringify(x));
          if (stripOpeners(x) !== x.trimStart()) stripped++;
        }
      }
    }
    assert.ok(stripped > 1000);
  });

  it("holds one unit's shingles and words: the same sets and Jaccards as shingles(), sortedJaccard and setJaccard, from the threshold up", () => {
    const table = new WordTable();
    // a few long texts too, so the held set has to grow
    const all = [...texts(600), "Alpha beta-gamma it's x.y zeta ".repeat(300)].map((t, i) => `${t} word${i % 7} the loader config`);
    let exact = 0, belowOnly = 0;
    const check = (got: number, want: number, atLeast: number) => {
      if (want >= atLeast) { assert.equal(got, want); exact++; } else { assert.ok(got < atLeast, `${got} for ${want} below ${atLeast}`); belowOnly++; }
    };
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [table.idsOf(all[i - 1], 600), table.idsOf(all[i], 600)];
      // 3-grams and 2-grams held side by side
      const held = [2, 3].map((n) => table.holdShingles(b, n));
      for (const n of [2, 3]) {
        assert.deepEqual([...held[n - 2]].sort((p, q) => p - q), table.shingles(b, n));
        for (const other of [a, b, a.slice(2), b.slice(3), b.slice(0, -2)]) {
          const distinct = table.distinctShingles(other, n);
          assert.deepEqual([...distinct].sort((p, q) => p - q), table.shingles(other, n));
          for (const atLeast of [0, 0.1, 0.45, 0.5, 0.9, 1]) check(table.jaccardWithHeldShingles(distinct, n, atLeast), sortedJaccard(table.shingles(other, n), table.shingles(b, n)), atLeast);
        }
      }
      assert.equal(table.holdWords(b), new Set(b).size);
      // setJaccard and distinctCount in between must not disturb the held words
      table.setJaccard(a, 0, a.length, a, 0, a.length);
      for (const other of [a, b, a.slice(1), b.slice(2), [...a, ...a]]) {
        const distinct = table.distinctCount(other);
        assert.equal(distinct, new Set(other).size);
        for (const atLeast of [0, 0.3, 0.45, 1]) check(table.jaccardWithHeldWords(other, distinct, atLeast), table.setJaccard(other, 0, other.length, b, 0, b.length), atLeast);
      }
    }
    assert.ok(exact > 100 && belowOnly > 100);
  });

  it("stops counting only when the threshold is out of reach, however close the sets sit to it", () => {
    const table = new WordTable();
    const ids = (from: number, count: number) => table.idsOf(Array.from({ length: count }, (_, k) => `w${from + k}`).join(" "), Infinity);
    for (let a = 1; a <= 14; a++) for (let b = 1; b <= 14; b++) for (let common = 0; common <= Math.min(a, b); common++) {
      // a's last `common` words are b's first
      const [x, y] = [ids(0, a), ids(a - common, b)];
      const value = common / (a + b - common);
      table.holdWords(y);
      // thresholds on the value itself and just around it
      for (const atLeast of [value, value - 1e-12, value + 1e-12, 0.45, 0.5]) {
        const got = table.jaccardWithHeldWords(x, a, atLeast);
        if (value >= atLeast) assert.equal(got, value, JSON.stringify({ a, b, common, atLeast }));
        else assert.ok(got < atLeast, JSON.stringify({ a, b, common, atLeast }));
      }
    }
  });

  it("measures word-set Jaccard as Sets of the words do, over a range and over words of one kind", () => {
    const long = (w: string) => (w.length >= 4 ? 1 : 0);
    const table = new WordTable(long);
    const setJaccard = (a: Set<string>, b: Set<string>) => {
      let common = 0;
      for (const w of a) if (b.has(w)) common++;
      const union = a.size + b.size - common;
      return union === 0 ? 1 : common / union;
    };
    const all = texts(600).map((t) => `${t} the loader config the`);
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [table.idsOf(all[i - 1], 600), table.idsOf(all[i], 600)];
      const [x, y] = [wordsFrom(table, a), wordsFrom(table, b)];
      assert.equal(table.setJaccard(a, 0, a.length, b, 0, b.length), setJaccard(new Set(x), new Set(y)));
      assert.equal(table.setJaccard(a, 1, a.length - 1, b, 1, b.length - 1), setJaccard(new Set(x.slice(1, -1)), new Set(y.slice(1, -1))));
      assert.equal(table.setJaccard(a, 0, a.length, b, 0, b.length, 1), setJaccard(new Set(x.filter((w) => long(w))), new Set(y.filter((w) => long(w)))));
    }
  });

  it("measures the longest common order of two runs as the table of the textbook does, across limb edges and repeated words", () => {
    const table = new WordTable();
    const ids = table.idsOf("a b c d e f g h i j k l m n o p q r s t u v w x y z", 50);
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const textbook = (a: readonly number[], b: readonly number[]) => {
      const rows = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) rows[i][j] = a[i - 1] === b[j - 1] ? rows[i - 1][j - 1] + 1 : Math.max(rows[i - 1][j], rows[i][j - 1]);
      return rows[a.length][b.length];
    };
    for (let t = 0; t < 3000; t++) {
      // few words (long common runs, carries across limbs) or many (short ones), lengths on and off the 32-bit edges
      const vocabulary = 1 + Math.floor(next() * (next() < 0.5 ? 4 : ids.length));
      const run = () => Array.from({ length: [0, 1, 31, 32, 33, 64, 65, 80][Math.floor(next() * 8)] + Math.floor(next() * 3) }, () => ids[Math.floor(next() * vocabulary)]);
      const a = run(), b = next() < 0.3 ? a.slice().reverse() : run();
      assert.equal(table.commonOrderLength(a, b), textbook(a, b), JSON.stringify({ a, b }));
    }
  });

  it("keeps the words still in use across a restart, renumbered, and forgets the rest", () => {
    const table = new WordTable();
    const kept = table.idsOf("Parser tokens stream: the parser reads tokens", 50);
    for (let i = 0; i < 5000; i++) table.idsOf(`word${i} other${i}`, 50);
    assert.equal(table.crowded(4096), true);
    const before = wordsFrom(table, kept);
    table.restart([kept]);
    assert.deepEqual(wordsFrom(table, kept), before);
    assert.equal(table.size, new Set(before).size);
    assert.equal(table.crowded(4096), false);
    assert.deepEqual(wordsFrom(table, table.idsOf("the parser word7", 50)), ["the", "parser", "word7"]);
  });

  it("keys the first words as textKey keys their joined text", () => {
    for (const text of texts(500)) {
      const words = wordsOf(text);
      for (const n of [0, 1, 5, 30]) assert.equal(wordsKey(words, n), textKey(words.slice(0, n).join(" ")));
    }
  });
});
