/**
 * What a projection keeps in memory, per views, for the page of events in hand: written to its rows
 * when the page ends, dropped when the page's transaction is discarded or the projection reset.
 */
export class PageMemory<V> {
  private readonly byViews = new Map<object, Map<string, V>>();

  /** The page's entries for `views`, created empty on first use. */
  of(views: object): Map<string, V> {
    let entries = this.byViews.get(views);
    if (entries === undefined) {
      entries = new Map();
      this.byViews.set(views, entries);
    }
    return entries;
  }

  /** The page's entries for `views`, handed over at the page's end; undefined when it kept none. */
  take(views: object): Map<string, V> | undefined {
    const entries = this.byViews.get(views);
    this.byViews.delete(views);
    return entries;
  }

  forget(views: object): void {
    this.byViews.delete(views);
  }

  clear(): void {
    this.byViews.clear();
  }
}
