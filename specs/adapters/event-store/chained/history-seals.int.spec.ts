import { ChainedEventStore } from '../../../../adapters/event-store/chained-event-store';
import { MemoryEventStore } from '../../../../adapters/event-store/memory/memory-event-store';
import { createHash } from 'node:crypto';
import { linkOf } from '../../../../domain/integrity/chain';
import { SEAL_STREAM, asSeal } from '../../../../domain/integrity/seal';
import type { EventStore, RecordedEvent } from '../../../../domain/ports/event-store';
import { openSqliteOrThrow } from '../sqlite/open-sqlite';
import { makeTempDir } from '../support/temp-dir';

const allEvents = async (store: EventStore): Promise<readonly RecordedEvent[]> => {
  const read = await store.readAll();
  if (read.kind !== 'read') throw new Error(read.reason);
  return read.events;
};

/**
 * Every seal's digest and count recomputed from the link digests stored before it, in position order,
 * by the version-2 rule: the SHA-256 (base64url) of the previous seal's digest and the digests it covers,
 * one a line.
 */
const expectSealsHold = (events: readonly RecordedEvent[]): number => {
  let seals = 0;
  let rolling = '';
  let count = 0;
  let through = -1n;
  for (const event of events) {
    if (event.stream !== SEAL_STREAM) continue;
    const seal = asSeal(event.data)!;
    const covered = events.filter((other) => other.position > through && other.position <= BigInt(seal.through_position) && linkOf(other.metadata) !== undefined);
    rolling = createHash('sha256').update([rolling, ...covered.map((other) => linkOf(other.metadata)!.digest)].join('\n')).digest('base64url');
    count += covered.length;
    expect(linkOf(event.metadata)?.v).toBe(2);
    expect({ count: seal.event_count, rolling: seal.rolling_digest }).toEqual({ count, rolling });
    expect(BigInt(seal.through_position) < event.position).toBe(true);
    through = BigInt(seal.through_position);
    seals += 1;
  }
  return seals;
};

/** `memory` whose readAll hands each page's events to `seen`, and answers what it returns instead. */
const readingThrough = (memory: MemoryEventStore, seen: (events: readonly RecordedEvent[]) => readonly RecordedEvent[]): MemoryEventStore =>
  Object.assign(Object.create(memory) as MemoryEventStore, {
    readAll: async (options?: Parameters<EventStore['readAll']>[0]) => {
      const read = await memory.readAll(options);
      return read.kind === 'read' ? { kind: 'read' as const, events: seen(read.events) } : read;
    },
  });

const append = async (store: EventStore, stream: string, ids: readonly string[], expectedRevision: 'no_stream' | bigint): Promise<void> => {
  const result = await store.append(stream, ids.map((id) => ({ id, type: 'Happened', data: { id } })), { expectedRevision });
  if (result.kind !== 'appended') throw new Error(result.kind);
};

describe('seals over the global order', () => {
  it('seals every N events and once more on close, each seal covering every linked event before it', async () => {
    const memory = new MemoryEventStore();
    const store = new ChainedEventStore(memory, 3);
    for (let index = 0; index < 4; index += 1) await append(store, `s-${index}`, [`a${index}`, `b${index}`], 'no_stream');
    await store.seal();
    await append(store, 's-0', ['c0'], 1n);
    await store.close();
    const events = await allEvents(memory);
    expect(expectSealsHold(events)).toBeGreaterThanOrEqual(2);
    const last = events[events.length - 1]!;
    expect(last.stream).toBe(SEAL_STREAM);
    expect(asSeal(last.data)?.event_count).toBe(events.length - 1);
  });

  it('seals from the digests it appended, on a store with consecutive positions, as it does reading them back', async () => {
    const memory = new MemoryEventStore();
    const store = new ChainedEventStore(memory, 4, true);
    for (let index = 0; index < 6; index += 1) await append(store, `s-${index}`, [`a${index}`, `b${index}`], 'no_stream');
    await store.close();
    expect(expectSealsHold(await allEvents(memory))).toBeGreaterThanOrEqual(3);
  });

  it('writes nothing on close when nothing was appended since the last seal', async () => {
    const memory = new MemoryEventStore();
    const store = new ChainedEventStore(memory, 1000);
    await append(store, 's', ['a'], 'no_stream');
    expect(await store.seal()).toEqual({ kind: 'sealed' });
    expect(await store.seal()).toEqual({ kind: 'nothing_new' });
    await store.close();
    expect((await allEvents(memory)).map((event) => event.stream)).toEqual(['s', SEAL_STREAM]);
  });

  it('continues from the last seal a former process wrote, on a real SQLite file', async () => {
    const dir = makeTempDir('seals');
    try {
      const path = `${dir.path}/events.sqlite`;
      const first = new ChainedEventStore(openSqliteOrThrow(path));
      await append(first, 's', ['a', 'b'], 'no_stream');
      await first.close();
      const second = new ChainedEventStore(openSqliteOrThrow(path));
      await append(second, 't', ['c'], 'no_stream');
      await second.close();
      const reader = openSqliteOrThrow(path);
      const events = await allEvents(reader);
      await reader.close();
      expect(events.filter((event) => event.stream === SEAL_STREAM).map((event) => event.revision)).toEqual([0n, 1n]);
      expect(expectSealsHold(events)).toBe(2);
    } finally {
      dir.remove();
    }
  });

  it('continues from the last of the seals a former process wrote, not from its first', async () => {
    const memory = new MemoryEventStore();
    const first = new ChainedEventStore(memory, 1000, true);
    await append(first, 's', ['a', 'b'], 'no_stream');
    expect(await first.seal()).toEqual({ kind: 'sealed' });
    await append(first, 't', ['c'], 'no_stream');
    expect(await first.seal()).toEqual({ kind: 'sealed' });
    await first.close();
    const second = new ChainedEventStore(memory, 1000, true);
    await append(second, 'u', ['d'], 'no_stream');
    expect(await second.seal()).toEqual({ kind: 'sealed' });
    await second.close();
    const events = await allEvents(memory);
    expect(events.filter((event) => event.stream === SEAL_STREAM).map((event) => event.revision)).toEqual([0n, 1n, 2n]);
    expect(expectSealsHold(events)).toBe(3);
  });

  it("after a restart, reads back only what the former process left unsealed, then seals its own appends without reading them", async () => {
    const memory = new MemoryEventStore();
    const first = new ChainedEventStore(memory, 1000, true);
    await append(first, 's', ['a', 'b'], 'no_stream');
    expect(await first.seal()).toEqual({ kind: 'sealed' });
    // Killed before its next seal: three events the store holds unsealed.
    await append(first, 't', ['c', 'd', 'e'], 'no_stream');
    const read: bigint[] = [];
    const counted = readingThrough(memory, (events) => {
      read.push(...events.map((event) => event.position));
      return events;
    });
    // Seals every 4 events: the restart's own 4 appends start a seal that reads back the 3 the former process left.
    const second = new ChainedEventStore(counted, 4, true);
    for (const stream of ['u', 'v', 'w', 'x']) await append(second, stream, [`${stream}0`], 'no_stream');
    // The seal the fourth append started, in the background: nothing is left after it.
    expect(await second.seal()).toEqual({ kind: 'nothing_new' });
    // After the former process's seal covered a and b: that seal itself, then c, d and e.
    const held = await allEvents(memory);
    const ownFirst = held.find((event) => event.stream === 'u')!.position;
    const unsealed = held.filter((event) => event.position > 2n && event.position < ownFirst).map((event) => event.position);
    expect(unsealed).toHaveLength(4);
    expect(read).toEqual(unsealed);
    await second.close();
    const events = await allEvents(memory);
    expect(expectSealsHold(events)).toBe(2);
    expect(asSeal(events[events.length - 1]!.data)!.event_count).toBe(events.filter((event) => event.stream !== SEAL_STREAM).length + 1);
  });
});

describe('seals over a history from before chains', () => {
  it('reads past more than a page of unlinked events and seals what follows them', async () => {
    const memory = new MemoryEventStore();
    const old = Array.from({ length: 2500 }, (_, index) => `old-${index}`);
    for (let start = 0; start < old.length; start += 500) {
      await append(memory, `old-${start}`, old.slice(start, start + 500), 'no_stream');
    }
    const store = new ChainedEventStore(memory, 1000);
    await append(store, 'new', ['n0', 'n1'], 'no_stream');
    expect(await store.seal()).toEqual({ kind: 'sealed' });
    await store.close();
    const events = await allEvents(memory);
    expect(expectSealsHold(events)).toBe(1);
    const seal = asSeal(events[events.length - 1]!.data)!;
    expect(seal.event_count).toBe(2);
  });

  it('reads each event once over seals that find no link to seal (links it cannot read), not from the start each time', async () => {
    const memory = new MemoryEventStore();
    let eventsRead = 0;
    // A store that loses metadata on reads: the sealer finds no link in what it reads back.
    const forgetful = readingThrough(memory, (events) => {
      eventsRead += events.length;
      return events.map((event) => ({ ...event, metadata: undefined }));
    });
    const store = new ChainedEventStore(forgetful, 1000);
    for (let round = 0; round < 4; round += 1) {
      await append(store, `s-${round}`, ['a', 'b', 'c', 'd', 'e'].map((id) => `${id}${round}`), 'no_stream');
      expect(await store.seal()).toEqual({ kind: 'nothing_new' });
    }
    expect(eventsRead).toBe(20);
    await store.close();
  });
});
