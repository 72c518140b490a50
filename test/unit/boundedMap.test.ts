import * as assert from "node:assert/strict";
import { BoundedMap } from "../../src/engine/boundedMap";

/** The plain least-recently-used map BoundedMap must behave as: an array of entries, oldest first. */
class ReferenceLru {
  entries: [string, number][] = [];
  constructor(private readonly capacity: number) {}
  private index(key: string): number { return this.entries.findIndex(([k]) => k === key); }
  get(key: string): number | undefined {
    const i = this.index(key);
    if (i < 0) return undefined;
    const [entry] = this.entries.splice(i, 1);
    this.entries.push(entry);
    return entry[1];
  }
  peek(key: string): number | undefined { const i = this.index(key); return i < 0 ? undefined : this.entries[i][1]; }
  set(key: string, value: number): void {
    const i = this.index(key);
    if (i >= 0) this.entries.splice(i, 1);
    this.entries.push([key, value]);
    if (this.entries.length > this.capacity) this.entries.shift();
  }
  delete(key: string): void { const i = this.index(key); if (i >= 0) this.entries.splice(i, 1); }
  clear(): void { this.entries = []; }
}

describe("BoundedMap", () => {
  it("keeps the same entries, in the same order, as a plain LRU map under any mix of operations", () => {
    let seed = 11;
    const next = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * n);
    // Small capacities and key sets make every path common: the newest key again, a key just missed, evicting the newest.
    for (const [capacity, keys, steps] of [[1, 3, 3000], [2, 4, 3000], [3, 3, 3000], [5, 12, 20000], [64, 200, 60000], [300, 2000, 60000]]) {
      const map = new BoundedMap<string, number>(capacity);
      const model = new ReferenceLru(capacity);
      for (let step = 0; step < steps; step++) {
        const key = `k${next(keys)}`;
        const op = next(100);
        const at = JSON.stringify({ capacity, step, op, key });
        if (op < 30) assert.equal(map.get(key), model.get(key), at);
        else if (op < 45) assert.equal(map.peek(key), model.peek(key), at);
        else if (op < 90) { const v = next(5); map.set(key, v); model.set(key, v); }
        else if (op < 99) { map.delete(key); model.delete(key); }
        else { map.clear(); model.clear(); }
        assert.equal(map.size, model.entries.length, at);
        if (step % 97 === 0 || capacity < 10) assert.deepEqual([...map.entries()], model.entries, at);
      }
      assert.deepEqual([...map.values()], model.entries.map(([, v]) => v));
    }
  });

  it("forgets the least recently used entry, not the least recently added", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    assert.equal(map.get("a"), 1);
    map.set("c", 3);
    assert.deepEqual([...map.entries()], [["a", 1], ["c", 3]]);
    map.peek("a"); // a peek is no use
    map.set("d", 4);
    assert.deepEqual([...map.entries()], [["c", 3], ["d", 4]]);
  });
});
