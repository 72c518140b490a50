/**
 * A Map that forgets its least recently used entries past a size: detector memory stays bounded.
 * Values are never undefined: a get that answers undefined found nothing.
 *
 * Recency is a doubly linked list through the entries, oldest first: a hit moves its entry to the
 * end by relinking it, one map lookup in all. (Keeping recency in the Map's own order takes a
 * delete and a re-insert per hit, each hashing the key again: three lookups, and the Map's table
 * fills with deleted slots that its iterators step over.)
 */
interface Entry<K, V> {
  key: K;
  value: V;
  older: Entry<K, V> | undefined;
  newer: Entry<K, V> | undefined;
}

export class BoundedMap<K, V extends {} | null> {
  private readonly map = new Map<K, Entry<K, V>>();
  /** The least and the most recently used entries (undefined: empty). */
  private oldest: Entry<K, V> | undefined;
  private newest: Entry<K, V> | undefined;
  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (e !== this.newest) { this.unlink(e); this.append(e); }
    return e.value;
  }

  /** Reads without refreshing recency. */
  peek(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  set(key: K, value: V): void {
    const e = this.map.get(key);
    if (e !== undefined) {
      e.value = value;
      if (e !== this.newest) { this.unlink(e); this.append(e); }
      return;
    }
    const added: Entry<K, V> = { key, value, older: undefined, newer: undefined };
    this.map.set(key, added);
    this.append(added);
    if (this.map.size > this.capacity) this.evictOldest();
  }

  private evictOldest(): void {
    const e = this.oldest!;
    this.unlink(e);
    this.map.delete(e.key);
  }

  delete(key: K): void {
    const e = this.map.get(key);
    if (e === undefined) return;
    this.unlink(e);
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
    this.oldest = undefined;
    this.newest = undefined;
  }

  get size(): number { return this.map.size; }

  /** Values, least recently used first. */
  *values(): IterableIterator<V> {
    for (let e = this.oldest; e !== undefined;) { const next = e.newer; yield e.value; e = next; }
  }

  /** Entries, least recently used first. */
  *entries(): IterableIterator<[K, V]> {
    for (let e = this.oldest; e !== undefined;) { const next = e.newer; yield [e.key, e.value]; e = next; }
  }

  private unlink(e: Entry<K, V>): void {
    if (e.older) e.older.newer = e.newer; else this.oldest = e.newer;
    if (e.newer) e.newer.older = e.older; else this.newest = e.older;
    e.older = undefined;
    e.newer = undefined;
  }

  private append(e: Entry<K, V>): void {
    e.older = this.newest;
    if (this.newest) this.newest.newer = e; else this.oldest = e;
    this.newest = e;
  }
}
