import BetterSqlite3 from 'better-sqlite3';
import { ChainedEventStore } from '../../../../adapters/event-store/chained-event-store';
import { MemoryEventStore } from '../../../../adapters/event-store/memory/memory-event-store';
import { CHAIN_KEY, chainLink, linkOf } from '../../../../domain/integrity/chain';
import type { AppendResult, EventStore, RecordedEvent } from '../../../../domain/ports/event-store';
import { openSqliteOrThrow } from '../sqlite/open-sqlite';
import { makeTempDir } from '../support/temp-dir';

const appended = (result: AppendResult): void => {
  if (result.kind !== 'appended') throw new Error(`expected appended, got ${result.kind}`);
};

const eventsOf = async (store: EventStore, stream: string): Promise<readonly RecordedEvent[]> => {
  const read = await store.readStream(stream);
  if (read.kind !== 'read') throw new Error(read.reason);
  return read.events;
};

/** Each event's link, recomputed from what the store holds, and the digest it links to. */
const expectChained = (events: readonly RecordedEvent[]): void => {
  let previous: string | null = null;
  for (const event of events) {
    const link = linkOf(event.metadata);
    expect(link).toEqual(chainLink(previous, event.stream, Number(event.revision), event.type, event.data));
    previous = link!.digest;
  }
};

describe('ChainedEventStore', () => {
  it('links each appended event to the previous one of its stream, keeping the caller\'s metadata', async () => {
    const store = new ChainedEventStore(new MemoryEventStore());
    appended(await store.append('s', [{ id: 'a', type: 'Opened', data: { n: 1 } }, { id: 'b', type: 'Moved', data: { to: [1, 2] }, metadata: { by: 'spec' } }], { expectedRevision: 'no_stream' }));
    appended(await store.append('s', [{ id: 'c', type: 'Moved', data: { to: [3] } }], { expectedRevision: 1n }));
    appended(await store.append('other', [{ id: 'x', type: 'Opened', data: {} }], { expectedRevision: 'any' }));
    appended(await store.append('s', [{ id: 'd', type: 'Closed', data: null }], { expectedRevision: 'stream_exists' }));
    const events = await eventsOf(store, 's');
    expect(events.map((event) => event.revision)).toEqual([0n, 1n, 2n, 3n]);
    expect(events[1]!.metadata?.by).toBe('spec');
    expectChained(events);
    expectChained(await eventsOf(store, 'other'));
    expect(linkOf(events[0]!.metadata)?.previous).toBeNull();
  });

  it('continues the chain of a stream it did not write, reading the head once, on a real SQLite file', async () => {
    const dir = makeTempDir('chained');
    try {
      const path = `${dir.path}/events.sqlite`;
      const first = new ChainedEventStore(openSqliteOrThrow(path));
      appended(await first.append('s', [{ id: 'a', type: 'Opened', data: { n: 1 } }], { expectedRevision: 'no_stream' }));
      await first.close();
      const second = new ChainedEventStore(openSqliteOrThrow(path));
      appended(await second.append('s', [{ id: 'b', type: 'Moved', data: { n: 2 } }], { expectedRevision: 0n }));
      const events = await eventsOf(second, 's');
      expectChained(events);
      expect(linkOf(events[1]!.metadata)?.previous).toBe(linkOf(events[0]!.metadata)?.digest);
      await second.close();
      // The metadata text the chain wrote itself is the text JSON.stringify gives for the link.
      const raw = new BetterSqlite3(path, { readonly: true });
      const texts = (raw.prepare("SELECT metadata FROM events WHERE stream = 's' ORDER BY position").all() as { metadata: string }[]).map((row) => row.metadata);
      raw.close();
      expect(texts).toEqual(events.map((event) => JSON.stringify({ [CHAIN_KEY]: linkOf(event.metadata) })));
    } finally {
      dir.remove();
    }
  });

  it('after a conflict with another writer, links to the event that writer appended, not to a stale head', async () => {
    const shared = new MemoryEventStore();
    const mine = new ChainedEventStore(shared);
    const theirs = new ChainedEventStore(shared);
    appended(await mine.append('s', [{ id: 'a', type: 'Opened', data: {} }], { expectedRevision: 'no_stream' }));
    appended(await theirs.append('s', [{ id: 'b', type: 'Moved', data: { by: 'them' } }], { expectedRevision: 0n }));
    const conflict = await mine.append('s', [{ id: 'c', type: 'Moved', data: { by: 'me' } }], { expectedRevision: 0n });
    expect(conflict).toMatchObject({ kind: 'version_conflict', actual: 1n });
    appended(await mine.append('s', [{ id: 'c', type: 'Moved', data: { by: 'me' } }], { expectedRevision: 1n }));
    // An `any` append while another writer moved the stream lands at the end, linked to it.
    appended(await theirs.append('s', [{ id: 'd', type: 'Moved', data: { by: 'them' } }], { expectedRevision: 'any' }));
    expectChained(await eventsOf(shared, 's'));
  });

  it('links an event after a stream\'s unlinked prefix (a store written before chaining) to nothing', async () => {
    const plain = new MemoryEventStore();
    appended(await plain.append('s', [{ id: 'a', type: 'Opened', data: {} }], { expectedRevision: 'no_stream' }));
    appended(await new ChainedEventStore(plain).append('s', [{ id: 'b', type: 'Moved', data: {} }], { expectedRevision: 0n }));
    const events = await eventsOf(plain, 's');
    expect(events[0]!.metadata?.[CHAIN_KEY]).toBeUndefined();
    expect(linkOf(events[1]!.metadata)).toEqual(chainLink(null, 's', 1, 'Moved', {}));
  });
});
