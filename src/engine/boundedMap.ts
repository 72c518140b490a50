/**
 * A Map that forgets its least recently used entries past a size: detector memory stays bounded.
 * Values are never undefined: a get that answers undefined found nothing.
 *
 * Entries live in slots (parallel arrays of keys and values) and recency is a doubly linked list of
 * slot numbers in two Int32Arrays, oldest first: a hit moves its slot to the end by relinking it,
 * one map lookup in all. The map holds slot numbers, not entry objects: an entry object per insert
 * lived as long as the capacity allowed, long enough to be copied by every young-generation
 * collection and promoted, and each relink wrote pointers between old and young objects that each
 * collection had to visit again. Slot numbers are small integers, written with no barrier.
 */
const NONE = -1;

export class BoundedMap<K, V extends {} | null> {
  private readonly map = new Map<K, number>();
  private keys: (K | undefined)[] = [];
  private vals: (V | undefined)[] = [];
  /** Per slot, the next older and newer slot (NONE at either end); grown with the slots in use. */
  private older = new Int32Array(8);
  private newer = new Int32Array(8);
  private oldest = NONE;
  private newest = NONE;
  /** Slots freed by delete, reused before new ones are taken. */
  private free: number[] = [];
  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const slot = this.map.get(key);
    if (slot === undefined) return undefined;
    if (slot !== this.newest) { this.unlink(slot); this.append(slot); }
    return this.vals[slot];
  }

  /** Reads without refreshing recency. */
  peek(key: K): V | undefined {
    const slot = this.map.get(key);
    return slot === undefined ? undefined : this.vals[slot];
  }

  set(key: K, value: V): void {
    if (this.capacity <= 0) return; // holds nothing
    const found = this.map.get(key);
    if (found !== undefined) {
      this.vals[found] = value;
      if (found !== this.newest) { this.unlink(found); this.append(found); }
      return;
    }
    let slot: number;
    if (this.map.size >= this.capacity && this.oldest !== NONE) {
      // full: the least recently used entry's slot is the new one's
      slot = this.oldest;
      this.unlink(slot);
      this.map.delete(this.keys[slot] as K);
    } else slot = this.free.length > 0 ? this.free.pop()! : this.takeSlot();
    this.keys[slot] = key;
    this.vals[slot] = value;
    this.map.set(key, slot);
    this.append(slot);
  }

  delete(key: K): void {
    const slot = this.map.get(key);
    if (slot === undefined) return;
    this.unlink(slot);
    this.map.delete(key);
    this.keys[slot] = undefined;
    this.vals[slot] = undefined;
    this.free.push(slot);
  }

  clear(): void {
    this.map.clear();
    this.keys = [];
    this.vals = [];
    this.free = [];
    this.oldest = NONE;
    this.newest = NONE;
  }

  get size(): number { return this.map.size; }

  /** Values, least recently used first. */
  *values(): IterableIterator<V> {
    for (let s = this.oldest; s !== NONE;) { const next = this.newer[s]; yield this.vals[s] as V; s = next; }
  }

  /** Entries, least recently used first. */
  *entries(): IterableIterator<[K, V]> {
    for (let s = this.oldest; s !== NONE;) { const next = this.newer[s]; yield [this.keys[s] as K, this.vals[s] as V]; s = next; }
  }

  /** A slot never used yet (the arrays grow by doubling, up to the capacity). */
  private takeSlot(): number {
    const slot = this.keys.length;
    if (slot >= this.older.length) {
      const size = Math.min(Math.max(8, this.older.length * 2), Math.max(this.capacity, 1));
      const older = new Int32Array(size), newer = new Int32Array(size);
      older.set(this.older);
      newer.set(this.newer);
      this.older = older;
      this.newer = newer;
    }
    this.keys.push(undefined);
    this.vals.push(undefined);
    return slot;
  }

  private unlink(slot: number): void {
    const older = this.older[slot], newer = this.newer[slot];
    if (older !== NONE) this.newer[older] = newer; else this.oldest = newer;
    if (newer !== NONE) this.older[newer] = older; else this.newest = older;
  }

  private append(slot: number): void {
    this.older[slot] = this.newest;
    this.newer[slot] = NONE;
    if (this.newest !== NONE) this.newer[this.newest] = slot; else this.oldest = slot;
    this.newest = slot;
  }
}
