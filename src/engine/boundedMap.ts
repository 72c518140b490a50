/** A Map that forgets its least recently used entries past a size: detector memory stays bounded. */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) { this.map.delete(key); this.map.set(key, v); }
    return v;
  }

  /** Reads without refreshing recency. */
  peek(key: K): V | undefined { return this.map.get(key); }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void { this.map.delete(key); }
  clear(): void { this.map.clear(); }
  get size(): number { return this.map.size; }
  values(): IterableIterator<V> { return this.map.values(); }
  entries(): IterableIterator<[K, V]> { return this.map.entries(); }
}
