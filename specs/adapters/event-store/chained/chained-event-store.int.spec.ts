import BetterSqlite3 from 'better-sqlite3';
import { ChainedEventStore } from '../../../../adapters/event-store/chained-event-store';
import { MemoryEventStore } from '../../../../adapters/event-store/memory/memory-event-store';
import { canonicalJson } from '../../../../domain/integrity/canonical-json';
import { CHAIN_KEY, chainLink, dataDigest, linkDigestOfData, linkOf, storedLink } from '../../../../domain/integrity/chain';
import { verifyIntegrity } from '../../../../domain/integrity/verify';
import type { AppendResult, EventStore, RecordedEvent } from '../../../../domain/ports/event-store';
import { openSqliteOrThrow } from '../sqlite/open-sqlite';
import { metadataOfColumn } from '../../../../adapters/event-store/sqlite/metadata-column';
import { makeTempDir } from '../support/temp-dir';
import { countingReads } from '../support/counting-reads';

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

  it('links a run of events of a stream whose name needs escaping, with a caller\'s data digest linked as given', async () => {
    const store = new ChainedEventStore(new MemoryEventStore());
    const stream = 'a "quoted"\\ stream';
    // Lowercase hex as every data digest is, and not this event's own: linked as given, not taken again.
    const callers = dataDigest('Moved', '{"given":true}');
    appended(await store.append(stream, [{ id: 'a', type: 'Opened', data: { n: 1 } }, { id: 'b', type: 'Moved', data: {}, dataDigest: callers }], { expectedRevision: 'no_stream' }));
    // At the revision the store wrote last: the cached head, with the stream's text written once.
    appended(await store.append(stream, [{ id: 'c', type: 'Moved', data: { n: 3 } }], { expectedRevision: 1n }));
    appended(await store.append(stream, [{ id: 'd', type: 'Closed', data: null }], { expectedRevision: 2 }));
    const links = (await eventsOf(store, stream)).map((event) => linkOf(event.metadata)!);
    const first = linkDigestOfData(null, stream, 0, dataDigest('Opened', '{"n":1}'));
    const second = linkDigestOfData(first, stream, 1, callers);
    const third = linkDigestOfData(second, stream, 2, dataDigest('Moved', '{"n":3}'));
    const fourth = linkDigestOfData(third, stream, 3, dataDigest('Closed', 'null'));
    expect(links.map((link) => [link.digest, link.previous])).toEqual([[first, null], [second, first], [third, second], [fourth, third]]);
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
      // The SQLite file keeps a version-2 link as its digests' bytes (tag 2, d, then p unless null), and
      // reads them back as the metadata the chain wrote.
      const raw = new BetterSqlite3(path, { readonly: true });
      const columns = (raw.prepare("SELECT metadata FROM events WHERE stream = 's' ORDER BY position").all() as { metadata: Buffer }[]).map((row) => row.metadata);
      raw.close();
      const [firstLink, secondLink] = events.map((event) => linkOf(event.metadata)!);
      expect(columns).toEqual([
        Buffer.concat([Buffer.of(2), Buffer.from(firstLink!.digest, 'base64url')]),
        Buffer.concat([Buffer.of(2), Buffer.from(secondLink!.digest, 'base64url'), Buffer.from(firstLink!.digest, 'base64url')]),
      ]);
      expect(events.map((event) => event.metadata)).toEqual(columns.map((column) => metadataOfColumn(column)));
      expect(JSON.stringify(events[1]!.metadata)).toMatch(/^\{"raes_chain":\{"v":2,"d":"[A-Za-z0-9_-]{43}","p":"[A-Za-z0-9_-]{43}"\}\}$/);
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

  it('links after the last event a reader read of a stream, without reading it again, and after a conflict to what moved it', async () => {
    const shared = new MemoryEventStore();
    const before = new ChainedEventStore(shared);
    for (const stream of ['s', 't', 'u']) {
      appended(await before.append(stream, [{ id: `${stream}-a`, type: 'Opened', data: {} }, { id: `${stream}-b`, type: 'Moved', data: { n: 1 } }], { expectedRevision: 'no_stream' }));
    }
    await before.close();
    // The store a restarted process appends through, each of its own store reads counted.
    const counted = countingReads(shared);
    const after = new ChainedEventStore(counted.store);
    expect((await after.readStream('s')).kind).toBe('read');
    expect((await after.readStreams(['t'])).kind).toBe('read');
    expect((await after.readStreamBackwards('u', { maxCount: 1 })).kind).toBe('read');
    for (const stream of ['s', 't', 'u']) appended(await after.append(stream, [{ id: `${stream}-c`, type: 'Moved', data: { n: 2 } }], { expectedRevision: 1n }));
    expect(counted.reads()).toBe(3);
    // An earlier event read does not take the place of a later head.
    expect((await after.readStream('t', { maxCount: 1 })).kind).toBe('read');
    appended(await after.append('t', [{ id: 't-d', type: 'Moved', data: { n: 3 } }], { expectedRevision: 2n }));
    expect(counted.reads()).toBe(4);
    // Another writer moves a stream after it was read: the append meets the conflict, then links to that writer's event.
    expect((await after.readStream('s')).kind).toBe('read');
    appended(await new ChainedEventStore(shared).append('s', [{ id: 's-d', type: 'Moved', data: { by: 'them' } }], { expectedRevision: 2n }));
    expect(await after.append('s', [{ id: 's-e', type: 'Moved', data: { by: 'me' } }], { expectedRevision: 2n })).toMatchObject({ kind: 'version_conflict', actual: 3n });
    appended(await after.append('s', [{ id: 's-e', type: 'Moved', data: { by: 'me' } }], { expectedRevision: 3n }));
    for (const stream of ['s', 't', 'u']) expectChained(await eventsOf(shared, stream));
  });

  it("keeps the heads of a restart's 24,000 streams read, then appended to, without reading any of them again", async () => {
    // A restart settling 12,000 interrupted invocations: it reads each one's stream and its scheduler's, then appends to each.
    const streams = Array.from({ length: 24_000 }, (_, index) => `stream-${index}`);
    const shared = new MemoryEventStore();
    const before = new ChainedEventStore(shared, 1_000_000);
    for (const stream of streams) appended(await before.append(stream, [{ id: `${stream}-a`, type: 'Opened', data: {} }], { expectedRevision: 'no_stream' }));
    const counted = countingReads(shared);
    const after = new ChainedEventStore(counted.store, 1_000_000);
    for (let from = 0; from < streams.length; from += 1000) expect((await after.readStreams(streams.slice(from, from + 1000))).kind).toBe('read');
    const read = counted.reads();
    for (const stream of streams) appended(await after.append(stream, [{ id: `${stream}-b`, type: 'Moved', data: {} }], { expectedRevision: 0n }));
    expect(counted.reads()).toBe(read);
  });

  it('links after the link a caller hands with an exact revision, without reading the event; its own head comes first', async () => {
    const shared = new MemoryEventStore();
    const before = new ChainedEventStore(shared);
    appended(await before.append('s', [{ id: 'a', type: 'Opened', data: {} }, { id: 'b', type: 'Moved', data: { n: 1 } }], { expectedRevision: 'no_stream' }));
    await before.close();
    const recorded = linkOf((await eventsOf(shared, 's'))[1]!.metadata)!.digest;
    const counted = countingReads(shared);
    const after = new ChainedEventStore(counted.store);
    appended(await after.append('s', [{ id: 'c', type: 'Moved', data: { n: 2 } }], { expectedRevision: 1n, previousLink: recorded }));
    expect(counted.reads()).toBe(0);
    // The head this store appended wins over what a caller hands.
    appended(await after.append('s', [{ id: 'd', type: 'Moved', data: { n: 3 } }], { expectedRevision: 2n, previousLink: recorded }));
    expectChained(await eventsOf(shared, 's'));
    // A revision the stream has passed meets the conflict, whatever link comes with it.
    const stale = new ChainedEventStore(counted.store);
    expect(await stale.append('s', [{ id: 'e', type: 'Moved', data: {} }], { expectedRevision: 1n, previousLink: recorded })).toMatchObject({ kind: 'version_conflict', actual: 3n });
  });

  it('links an event after a stream\'s unlinked prefix (a store written before chaining) to nothing', async () => {
    const plain = new MemoryEventStore();
    appended(await plain.append('s', [{ id: 'a', type: 'Opened', data: {} }], { expectedRevision: 'no_stream' }));
    appended(await new ChainedEventStore(plain).append('s', [{ id: 'b', type: 'Moved', data: {} }], { expectedRevision: 0n }));
    const events = await eventsOf(plain, 's');
    expect(events[0]!.metadata?.[CHAIN_KEY]).toBeUndefined();
    expect(linkOf(events[1]!.metadata)).toEqual(chainLink(null, 's', 1, 'Moved', {}));
  });

  it('digests the data text a caller says is canonical as it is, and writes canonical text for data no caller serialised', async () => {
    const dir = makeTempDir('chained-canonical');
    try {
      const path = `${dir.path}/events.sqlite`;
      const store = new ChainedEventStore(openSqliteOrThrow(path));
      const data = { b: 1, a: { d: [true], c: 'x' } };
      appended(await store.append('s', [{ id: 'a', type: 'Opened', data, dataJson: canonicalJson(data), dataJsonCanonical: true }], { expectedRevision: 'no_stream' }));
      // Not said to be canonical: the caller's text is written, the link digested over the canonical text.
      appended(await store.append('s', [{ id: 'b', type: 'Moved', data, dataJson: JSON.stringify(data) }], { expectedRevision: 0n }));
      appended(await store.append('s', [{ id: 'c', type: 'Moved', data }], { expectedRevision: 1n }));
      await store.close();
      const raw = new BetterSqlite3(path, { readonly: true });
      const texts = (raw.prepare("SELECT data FROM events WHERE stream = 's' ORDER BY position").all() as { data: string }[]).map((row) => row.data);
      raw.close();
      expect(texts).toEqual(['{"a":{"c":"x","d":[true]},"b":1}', '{"b":1,"a":{"d":[true],"c":"x"}}', '{"a":{"c":"x","d":[true]},"b":1}']);
      const reopened = openSqliteOrThrow(path);
      const read = await reopened.readAll();
      await reopened.close();
      if (read.kind !== 'read') throw new Error(read.reason);
      expect(verifyIntegrity(read.events)).toMatchObject({ chained_events: 4, seals: 1, findings: [] });
    } finally {
      dir.remove();
    }
  });

  it('continues a stream linked in version 1 (a store written before version 2) with version-2 links the check accepts', async () => {
    const plain = new MemoryEventStore();
    const v1 = chainLink(null, 's', 0, 'Opened', { n: 1 }, 1);
    expect(v1.digest).toMatch(/^[0-9a-f]{64}$/);
    appended(await plain.append('s', [{ id: 'a', type: 'Opened', data: { n: 1 }, metadata: { [CHAIN_KEY]: storedLink(v1) } }], { expectedRevision: 'no_stream' }));
    const chained = new ChainedEventStore(plain);
    appended(await chained.append('s', [{ id: 'b', type: 'Moved', data: { n: 2 } }], { expectedRevision: 0n }));
    await chained.seal();
    const events = await eventsOf(plain, 's');
    expect(events[0]!.metadata?.[CHAIN_KEY]).toEqual({ v: 1, digest: v1.digest, previous: null });
    expect(linkOf(events[1]!.metadata)).toEqual({ v: 2, digest: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), previous: v1.digest });
    const all = await plain.readAll();
    if (all.kind !== 'read') throw new Error(all.reason);
    expect(verifyIntegrity(all.events)).toMatchObject({ chained_events: 3, seals: 1, findings: [] });
  });
});
