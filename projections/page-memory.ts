import type { Database } from 'better-sqlite3';

/**
 * What a projection keeps in memory, per views database, for the page of events in hand: written to its
 * rows when the page ends, dropped when the page's transaction is discarded or the projection reset.
 */
export class PageMemory<V> {
  private readonly byViews = new Map<Database, Map<string, V>>();

  /** The page's entries for `views`, created empty on first use. */
  of(views: Database): Map<string, V> {
    let entries = this.byViews.get(views);
    if (entries === undefined) {
      entries = new Map();
      this.byViews.set(views, entries);
    }
    return entries;
  }

  /** The page's entries for `views`, handed over at the page's end; undefined when it kept none. */
  take(views: Database): Map<string, V> | undefined {
    const entries = this.byViews.get(views);
    this.byViews.delete(views);
    return entries;
  }

  forget(views: Database): void {
    this.byViews.delete(views);
  }

  clear(): void {
    this.byViews.clear();
  }
}
