/**
 * A Map that forgets its least recently used entries past a size: detector memory stays bounded.
 * Values are never undefined: a get that answers undefined found nothing.
 */
export class BoundedMap<K, V extends {} | null> {
  private readonly map = new Map<K, V>();
  /**
   * The most recently used key, while it is in the map (hasNewest): refreshing it would move it to
   * where it already is, so a get or set of it skips the delete and re-insert (most of the cost).
   */
  private newest: K | undefined;
  private hasNewest = false;
  /** The latest key a get or peek did not find, while nothing was added since: setting it needs no delete first. */
  private missed: K | undefined;
  private hasMissed = false;
  /**
   * One live iterator over the keys, kept from eviction to eviction: every key it has passed was
   * evicted, so its next key is the oldest. A new iterator would start at the front of the map's
   * table and step over every evicted entry still there (up to its capacity) each time.
   */
  private evictionOrder: Iterator<K> | undefined;
  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) { this.missed = key; this.hasMissed = true; return v; }
    if (!this.hasNewest || key !== this.newest) { this.map.delete(key); this.map.set(key, v); this.newest = key; this.hasNewest = true; }
    return v;
  }

  /** Reads without refreshing recency. */
  peek(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) { this.missed = key; this.hasMissed = true; }
    return v;
  }

  set(key: K, value: V): void {
    if (this.hasNewest && key === this.newest) { this.map.set(key, value); return; }
    // A key just looked up and not found is not in the map: nothing to move.
    if (!this.hasMissed || key !== this.missed) this.map.delete(key);
    this.hasMissed = false;
    this.map.set(key, value);
    this.newest = key;
    this.hasNewest = true;
    if (this.map.size > this.capacity) this.evictOldest();
  }

  private evictOldest(): void {
    this.evictionOrder ??= this.map.keys();
    const oldest = this.evictionOrder.next().value as K;
    this.map.delete(oldest);
    if (this.hasNewest && oldest === this.newest) this.hasNewest = false;
  }

  delete(key: K): void {
    this.map.delete(key);
    if (this.hasNewest && key === this.newest) this.hasNewest = false;
  }

  clear(): void {
    this.map.clear();
    this.evictionOrder = undefined;
    this.hasNewest = false;
    this.hasMissed = false;
  }

  get size(): number { return this.map.size; }
  values(): IterableIterator<V> { return this.map.values(); }
  entries(): IterableIterator<[K, V]> { return this.map.entries(); }
}
