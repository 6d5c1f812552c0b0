import { BACKWARDS, END, StreamNotFoundError, type EventStoreDBClient, type ReadRevision } from '@eventstore/db-client';
import { EventStoreDbEventStore } from '../../../../adapters/event-store/eventstoredb/eventstoredb-event-store';
import type { ReadResult } from '../../../../domain/ports/event-store';

/**
 * The EventStoreDB store's backwards read against a client that answers as the server does: it reads
 * the revisions from `fromRevision - maxCount + 1` to `fromRevision`, whatever the stream's end (the
 * server's index reader does not bring a revision past the end back to it), and a missing stream fails
 * the read with StreamNotFoundError. The contract suite runs the same reads on a real server when one
 * is configured.
 */

type Read = { readonly stream: string; readonly fromRevision: ReadRevision; readonly maxCount: number };

const notFound = (stream: string): StreamNotFoundError => {
  const error = Object.create(StreamNotFoundError.prototype) as StreamNotFoundError;
  return Object.assign(error, { streamName: stream, message: `${stream} not found` });
};

/** A server holding `streams` (name to last revision); `beforeRead` can append between two reads. */
const fakeServer = (streams: Map<string, number>, beforeRead: (reads: readonly Read[]) => void = () => undefined) => {
  const reads: Read[] = [];
  const client = {
    readStream: (stream: string, options: { direction: unknown; fromRevision: ReadRevision; maxCount: number }) => {
      expect(options.direction).toBe(BACKWARDS);
      beforeRead(reads);
      reads.push({ stream, fromRevision: options.fromRevision, maxCount: options.maxCount });
      const last = streams.get(stream);
      return (async function* () {
        if (last === undefined) throw notFound(stream);
        const end = options.fromRevision === END ? BigInt(last) : (options.fromRevision as bigint);
        const start = end - BigInt(options.maxCount) + 1n > 0n ? end - BigInt(options.maxCount) + 1n : 0n;
        for (let revision = end; revision >= start; revision -= 1n) {
          if (revision > BigInt(last)) continue;
          const event = { id: `esdb-${revision}`, type: 'T', data: { revision: Number(revision) }, metadata: { event_id: `e${revision}`, metadata: null }, streamId: stream, revision, created: new Date(0) };
          yield { event, commitPosition: 100n + revision };
        }
      })();
    },
  };
  return { store: new EventStoreDbEventStore(client as unknown as EventStoreDBClient), reads };
};

const ids = (result: ReadResult): string[] => {
  if (result.kind !== 'read') throw new Error(result.reason);
  return result.events.map((event) => event.id);
};

describe('EventStoreDB store reading a stream backwards', () => {
  it('reads from the stream\'s end, or from a revision the stream reaches, in one call', async () => {
    const { store, reads } = fakeServer(new Map([['s', 6]]));
    expect(ids(await store.readStreamBackwards('s', { maxCount: 3 }))).toEqual(['e6', 'e5', 'e4']);
    expect(ids(await store.readStreamBackwards('s', { fromRevision: 4n, maxCount: 2 }))).toEqual(['e4', 'e3']);
    expect(ids(await store.readStreamBackwards('s', { fromRevision: 2n, maxCount: 100 }))).toEqual(['e2', 'e1', 'e0']);
    expect(reads.map((read) => read.fromRevision)).toEqual([END, 4n, 2n]);
  });

  it('reads again from the last event when fromRevision is past the end and the window reaches into the stream', async () => {
    const { store, reads } = fakeServer(new Map([['s', 6]]));
    expect(ids(await store.readStreamBackwards('s', { fromRevision: 8n, maxCount: 3 }))).toEqual(['e6', 'e5', 'e4']);
    expect(reads.map((read) => read.fromRevision)).toEqual([8n, 6n]);
  });

  it('does not read again when a short answer went down to revision 0', async () => {
    const { store, reads } = fakeServer(new Map([['s', 1]]));
    expect(ids(await store.readStreamBackwards('s', { fromRevision: 3n, maxCount: 10 }))).toEqual(['e1', 'e0']);
    expect(reads).toHaveLength(1);
  });

  it('reads from the stream\'s end when the window is wholly past it', async () => {
    const { store, reads } = fakeServer(new Map([['s', 6]]));
    expect(ids(await store.readStreamBackwards('s', { fromRevision: 1000n, maxCount: 2 }))).toEqual(['e6', 'e5']);
    expect(reads.map((read) => read.fromRevision)).toEqual([1000n, END]);
  });

  it('reads the window again when an append took the stream past fromRevision between the two reads', async () => {
    const streams = new Map([['s', 2]]);
    const { store, reads } = fakeServer(streams, (done) => {
      if (done.length === 1) streams.set('s', 20);
    });
    expect(ids(await store.readStreamBackwards('s', { fromRevision: 10n, maxCount: 3 }))).toEqual(['e10', 'e9', 'e8']);
    expect(reads.map((read) => read.fromRevision)).toEqual([10n, END, 10n]);
  });

  it('reads a missing stream as empty, and nothing at all for a count below 1 or a revision below 0', async () => {
    const { store, reads } = fakeServer(new Map([['s', 6]]));
    expect(await store.readStreamBackwards('missing', { maxCount: 3 })).toEqual({ kind: 'read', events: [] });
    expect(await store.readStreamBackwards('missing', { fromRevision: 5n, maxCount: 3 })).toEqual({ kind: 'read', events: [] });
    const asked = reads.length;
    expect(await store.readStreamBackwards('s', { maxCount: 0 })).toEqual({ kind: 'read', events: [] });
    expect(await store.readStreamBackwards('s', { fromRevision: -1n, maxCount: 3 })).toEqual({ kind: 'read', events: [] });
    expect(reads).toHaveLength(asked);
  });

  it('maps the recorded events as readStream does, and any other error to a storage failure', async () => {
    const { store } = fakeServer(new Map([['s', 0]]));
    const read = await store.readStreamBackwards('s', { maxCount: 1 });
    expect(read).toEqual({
      kind: 'read',
      events: [{ id: 'e0', type: 'T', data: { revision: 0 }, metadata: undefined, stream: 's', revision: 0n, position: 100n, recordedAt: new Date(0) }],
    });
    const failing = new EventStoreDbEventStore({
      readStream: () => (async function* () {
        throw new Error('14 UNAVAILABLE: no connection');
      })(),
    } as unknown as EventStoreDBClient);
    expect(await failing.readStreamBackwards('s', { maxCount: 1 })).toEqual({
      kind: 'storage_failure',
      reason: "EventStoreDB: reading stream 's' backwards failed: 14 UNAVAILABLE: no connection",
    });
  });
});
