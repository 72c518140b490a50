import * as assert from "node:assert/strict";
import { firstDifference, JsonArrayTail } from "../../src/hosts/cline/jsonArrayTail";

const buf = (v: unknown) => Buffer.from(JSON.stringify(v));

describe("JsonArrayTail (incremental reading of a rewritten JSON array)", () => {
  it("reports every element at first, then only the one that grew", () => {
    const tail = new JsonArrayTail();
    const a = [{ ts: 1, text: "task" }, { ts: 2, text: "thinking" }];
    assert.deepEqual(tail.update(buf(a)), { changed: [{ index: 0, value: a[0] }, { index: 1, value: a[1] }], length: 2, complete: true });
    a[1].text = "thinking harder";
    assert.deepEqual(tail.update(buf(a)).changed, [{ index: 1, value: a[1] }]);
    assert.deepEqual(tail.update(buf(a)).changed, []);
  });

  it("does not report later elements that only moved because an earlier one changed length", () => {
    const tail = new JsonArrayTail();
    const a: { ts: number; text: string }[] = [{ ts: 1, text: "a" }, { ts: 2, text: "{\"request\":\"x\"}" }, { ts: 3, text: "b" }, { ts: 4, text: "c" }];
    tail.update(buf(a));
    a[1].text = "{\"request\":\"x\",\"tokensIn\":10}";
    a.push({ ts: 5, text: "new" });
    assert.deepEqual(tail.update(buf(a)).changed.map((c) => c.index), [1, 4]);
  });

  it("keeps the complete elements of a half-written file and picks up the rest later", () => {
    const tail = new JsonArrayTail();
    const full = buf([{ ts: 1, text: "x" }, { ts: 2, text: "y ] } \" tricky" }, { ts: 3, text: "z" }]);
    const cut = full.subarray(0, full.indexOf("tricky") + 2);
    const first = tail.update(cut);
    assert.deepEqual([first.changed.map((c) => c.index), first.length, first.complete], [[0], 1, false]);
    const rest = tail.update(full);
    assert.deepEqual([rest.changed.map((c) => c.index), rest.length, rest.complete], [[1, 2], 3, true]);
  });

  it("handles brackets, quotes and escapes inside strings and multi-byte text", () => {
    const tail = new JsonArrayTail();
    const a = [{ text: "a [b] {c} \\\" \" ü 日本 😀" }, [1, [2, 3]], "plain", 42, null];
    assert.deepEqual(tail.update(Buffer.from(JSON.stringify(a, null, 2))).changed.map((c) => c.value), a);
  });

  it("throws on a file that is not a JSON array", () => {
    assert.throws(() => new JsonArrayTail().update(Buffer.from('{"messages": []}')), SyntaxError);
  });

  it("finds the first differing byte like a plain scan does", () => {
    let seed = 7;
    const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    for (let round = 0; round < 200; round++) {
      const a = Buffer.alloc(rnd(300_000), 97);
      const b = Buffer.from(a.subarray(0, rnd(a.length + 1)));
      if (b.length > 0 && rnd(2)) b[rnd(b.length)] = 98;
      let expected = 0;
      while (expected < Math.min(a.length, b.length) && a[expected] === b[expected]) expected++;
      assert.equal(firstDifference(a, b), expected);
    }
  });
});
