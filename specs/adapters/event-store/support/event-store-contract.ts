import { randomUUID } from 'node:crypto';
import type { AppendResult, EventStore, EventToAppend, ReadResult, RecordedEvent, SubscriptionBatch } from '../../../../domain/ports/event-store';
import { waitFor } from './wait-for';
import type { TailReadable } from '../../../../adapters/event-store/store-tail';

/** How a contract run gets a store: `reopen` gives a new store over the same data, as after a restart. */
export type EventStoreHarness = {
  readonly open: () => Promise<EventStore>;
  readonly reopen: (previous: EventStore) => Promise<EventStore>;
  readonly dispose?: () => Promise<void>;
  /** A metadata key the store under test adds to every event it appends (the chain link of a chained store). */
  readonly addedMetadataKey?: string;
};

const event = (id: string, type = 'ThingHappened', data: EventToAppend['data'] = { id }): EventToAppend => ({
  id,
  type,
  data,
});

const appended = (result: AppendResult) => {
  if (result.kind !== 'appended') throw new Error(`expected appended, got ${JSON.stringify(result, bigintJson)}`);
  return result;
};

const read = (result: ReadResult): readonly RecordedEvent[] => {
  if (result.kind !== 'read') throw new Error(`expected read, got ${result.reason}`);
  return result.events;
};

const bigintJson = (_key: string, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value);

/**
 * The rules every event store keeps, run against each adapter. Streams are named per test, so the
 * suite can share a server with other data.
 */
export const describeEventStoreContract = (name: string, harness: EventStoreHarness): void => {
  describe(`${name} event store contract`, () => {
    let store: EventStore;
    let prefix: string;
    const stream = (suffix: string) => `${prefix}-${suffix}`;

    beforeEach(async () => {
      store = await harness.open();
      prefix = `contract_${randomUUID().replace(/-/g, '')}`;
    });
    afterEach(async () => {
      await store.close();
      if (harness.dispose !== undefined) await harness.dispose();
    });

    describe('ordering', () => {
      it("keeps quotes, backslashes and characters beyond ASCII exactly, in the stream's name, ids, types, data and metadata", async () => {
        const odd = `it's \\ "quoted" \\' ''; -- é ✓ 𝄞 \\x00 \\u0041`;
        const name = stream(`odd ${odd}`);
        const written: EventToAppend = { id: `id ${odd}`, type: `Type ${odd}`, data: { text: odd, [odd]: [odd, 1.5] }, metadata: { note: odd } };
        appended(await store.append(name, [written, event(`second ${odd}`)], { expectedRevision: 'no_stream' }));
        const events = read(await store.readStream(name));
        expect(events.map((recorded) => [recorded.stream, recorded.id, recorded.type])).toEqual([
          [name, written.id, written.type],
          [name, `second ${odd}`, 'ThingHappened'],
        ]);
        expect(events[0]!.data).toEqual(written.data);
        expect(events[0]!.metadata).toMatchObject({ note: odd });
        appended(await store.append(name, [event(`third ${odd}`)], { expectedRevision: 1n }));
        expect(read(await store.readStream(name)).map((recorded) => recorded.revision)).toEqual([0n, 1n, 2n]);
      });

      it('gives a new stream revisions from 0 in append order and keeps type, data and metadata', async () => {
        const first = appended(
          await store.append(
            stream('a'),
            [event('e1'), { id: 'e2', type: 'OtherHappened', data: { n: 2, list: [1, 'x'] }, metadata: { by: 'spec' } }],
            { expectedRevision: 'no_stream' },
          ),
        );
        expect(first.nextExpectedRevision).toBe(1n);
        appended(await store.append(stream('a'), [event('e3')], { expectedRevision: 1n }));

        const events = read(await store.readStream(stream('a')));
        expect(events.map((e) => [e.id, e.revision, e.stream])).toEqual([
          ['e1', 0n, stream('a')],
          ['e2', 1n, stream('a')],
          ['e3', 2n, stream('a')],
        ]);
        const callerMetadata = (recorded: RecordedEvent) => {
          const key = harness.addedMetadataKey;
          if (key === undefined || recorded.metadata === undefined) return recorded.metadata;
          expect(recorded.metadata[key]).toBeDefined();
          const kept = Object.fromEntries(Object.entries(recorded.metadata).filter(([name]) => name !== key));
          return Object.keys(kept).length === 0 ? undefined : kept;
        };
        expect(events[1]).toMatchObject({ type: 'OtherHappened', data: { n: 2, list: [1, 'x'] } });
        expect(callerMetadata(events[1]!)).toEqual({ by: 'spec' });
        expect(callerMetadata(events[0]!)).toBeUndefined();
        expect(events[0]!.recordedAt).toBeInstanceOf(Date);
        expect(events[0]!.position < events[1]!.position && events[1]!.position < events[2]!.position).toBe(true);
        expect(events[2]!.position).toBe((await store.append(stream('a'), [event('e3')], { expectedRevision: 1n }) as { lastPosition: bigint }).lastPosition);
      });

      it('reads a stream from a revision, a limited count at a time', async () => {
        appended(await store.append(stream('a'), ['1', '2', '3', '4'].map((n) => event(`e${n}`)), { expectedRevision: 'no_stream' }));
        const page = read(await store.readStream(stream('a'), { fromRevision: 1n, maxCount: 2 }));
        expect(page.map((e) => e.id)).toEqual(['e2', 'e3']);
      });

      it('reads a stream never appended to as empty', async () => {
        expect(read(await store.readStream(stream('never')))).toEqual([]);
      });

      it('reads many whole streams in one call, each as readStream reads it, a stream never appended to as empty', async () => {
        // Interleaved appends, so one stream's events are not neighbours in the log.
        for (const n of [0, 1, 2]) {
          for (const name of ['b', 'a', 'c']) {
            appended(await store.append(stream(name), [event(`${name}${n}`, 'ThingHappened', { name, n })], { expectedRevision: n === 0 ? 'no_stream' : n - 1 }));
          }
        }
        const asked = [stream('c'), stream('never'), stream('a')];
        const result = await store.readStreams(asked);
        if (result.kind !== 'read') throw new Error(`expected read, got ${result.reason}`);
        expect([...result.streams.keys()].sort()).toEqual([...asked].sort());
        expect(result.streams.get(stream('never'))).toEqual([]);
        for (const name of ['a', 'c']) {
          const events = result.streams.get(stream(name))!;
          const one = read(await store.readStream(stream(name)));
          expect(events.map((e) => [e.id, e.revision, e.position, e.stream, e.type, e.data])).toEqual(
            one.map((e) => [e.id, e.revision, e.position, e.stream, e.type, e.data]),
          );
          expect(events.map((e) => e.data)).toEqual([0, 1, 2].map((n) => ({ name, n })));
        }
        const firstTwo = await store.readStreams(asked, { maxCount: 2 });
        if (firstTwo.kind !== 'read') throw new Error(`expected read, got ${firstTwo.reason}`);
        expect(asked.map((name) => firstTwo.streams.get(name)!.map((e) => e.id))).toEqual([['c0', 'c1'], [], ['a0', 'a1']]);
      });
    });

    describe('reading a stream backwards', () => {
      /**
       * Stream `a` holds a0..a6 (revisions 0 to 6). Its events are interleaved in the log with those of
       * `b` and of `a-more`, whose name starts with `a`'s: a read that strays into another stream, or
       * takes the log's order for the stream's, shows it.
       */
      const appendInterleaved = async (): Promise<void> => {
        const rounds = [[0, 2], [2, 3], [3, 6], [6, 7]] as const;
        for (const [round, [from, to]] of rounds.entries()) {
          // b and a-more get one event a round, a the events from `from` to before `to`.
          const neighbours = round === 0 ? 'no_stream' : BigInt(round - 1);
          appended(await store.append(stream('b'), [event(`b${from}`)], { expectedRevision: neighbours }));
          const ids = Array.from({ length: to - from }, (_, index) => `a${from + index}`);
          const expectedRevision = from === 0 ? 'no_stream' : BigInt(from - 1);
          appended(await store.append(stream('a'), ids.map((id) => event(id, 'ThingHappened', { id, n: Number(id.slice(1)) })), { expectedRevision }));
          appended(await store.append(`${stream('a')}-more`, [event(`m${from}`)], { expectedRevision: neighbours }));
        }
      };
      const ids = (events: readonly RecordedEvent[]) => events.map((e) => e.id);
      const revisions = (events: readonly RecordedEvent[]) => events.map((e) => e.revision);
      const backwards = async (name: string, options: { fromRevision?: bigint; maxCount: number }) => read(await store.readStreamBackwards(name, options));

      it('reads the stream\'s last maxCount events from its end, the last first, as readStream reads them', async () => {
        await appendInterleaved();
        const last = await backwards(stream('a'), { maxCount: 3 });
        expect(ids(last)).toEqual(['a6', 'a5', 'a4']);
        expect(revisions(last)).toEqual([6n, 5n, 4n]);
        expect(last.every((e) => e.stream === stream('a'))).toBe(true);
        expect(last[0]!.position > last[1]!.position && last[1]!.position > last[2]!.position).toBe(true);
        const forwards = read(await store.readStream(stream('a'), { fromRevision: 4n }));
        const shape = (e: RecordedEvent) => [e.id, e.stream, e.revision, e.position, e.type, e.data, e.metadata, e.recordedAt.getTime()];
        expect(last.map(shape)).toEqual([...forwards].reverse().map(shape));
        expect(last.map((e) => e.data)).toEqual([6, 5, 4].map((n) => ({ id: `a${n}`, n })));
      });

      it('reads down from a given revision, that revision first', async () => {
        await appendInterleaved();
        expect(ids(await backwards(stream('a'), { fromRevision: 4n, maxCount: 2 }))).toEqual(['a4', 'a3']);
        expect(ids(await backwards(stream('a'), { fromRevision: 6n, maxCount: 1 }))).toEqual(['a6']);
        expect(ids(await backwards(stream('a'), { fromRevision: 0n, maxCount: 5 }))).toEqual(['a0']);
        expect(ids(await backwards(stream('a'), { fromRevision: 1n, maxCount: 1 }))).toEqual(['a1']);
      });

      it('reads the whole stream, down to revision 0, when maxCount is larger than the stream', async () => {
        await appendInterleaved();
        expect(ids(await backwards(stream('a'), { maxCount: 100 }))).toEqual(['a6', 'a5', 'a4', 'a3', 'a2', 'a1', 'a0']);
        expect(ids(await backwards(stream('a'), { fromRevision: 2n, maxCount: 100 }))).toEqual(['a2', 'a1', 'a0']);
        expect(ids(await backwards(stream('a'), { maxCount: 7 }))).toEqual(['a6', 'a5', 'a4', 'a3', 'a2', 'a1', 'a0']);
      });

      it('reads from the stream\'s last event when fromRevision is past its end', async () => {
        await appendInterleaved();
        expect(ids(await backwards(stream('a'), { fromRevision: 8n, maxCount: 3 }))).toEqual(['a6', 'a5', 'a4']);
        expect(ids(await backwards(stream('a'), { fromRevision: 1000n, maxCount: 2 }))).toEqual(['a6', 'a5']);
      });

      it('reads a stream never appended to as empty, from its end or from a revision', async () => {
        await appendInterleaved();
        expect(await backwards(stream('never'), { maxCount: 10 })).toEqual([]);
        expect(await backwards(stream('never'), { fromRevision: 3n, maxCount: 10 })).toEqual([]);
        // A name that only starts another stream's is a stream of its own.
        expect(await backwards(stream('a-mor'), { maxCount: 10 })).toEqual([]);
      });

      it('never includes another stream\'s events', async () => {
        await appendInterleaved();
        const others = [stream('b'), `${stream('a')}-more`];
        expect(ids(await backwards(stream('a'), { maxCount: 100 })).filter((id) => !id.startsWith('a'))).toEqual([]);
        expect(ids(await backwards(stream('b'), { maxCount: 100 }))).toEqual(['b6', 'b3', 'b2', 'b0']);
        expect(ids(await backwards(others[1]!, { fromRevision: 2n, maxCount: 100 }))).toEqual(['m3', 'm2', 'm0']);
        for (const name of others) {
          expect((await backwards(name, { maxCount: 100 })).every((e) => e.stream === name)).toBe(true);
        }
      });

      it('reads nothing for a count below 1 or from below revision 0', async () => {
        await appendInterleaved();
        expect(await backwards(stream('a'), { maxCount: 0 })).toEqual([]);
        expect(await backwards(stream('a'), { maxCount: -1 })).toEqual([]);
        expect(await backwards(stream('a'), { fromRevision: -1n, maxCount: 3 })).toEqual([]);
      });

      it('reassembles the stream page by page, each page read down from below the last one', async () => {
        await appendInterleaved();
        const pages: string[][] = [];
        let fromRevision: bigint | undefined;
        for (let round = 0; round < 10; round += 1) {
          const page = await backwards(stream('a'), { ...(fromRevision === undefined ? {} : { fromRevision }), maxCount: 3 });
          if (page.length === 0) break;
          pages.push(ids(page));
          fromRevision = page[page.length - 1]!.revision - 1n;
        }
        expect(pages).toEqual([['a6', 'a5', 'a4'], ['a3', 'a2', 'a1'], ['a0']]);
        const whole = read(await store.readStream(stream('a')));
        expect(pages.flat().reverse()).toEqual(ids(whole));
      });
    });

    describe('expected revision', () => {
      it('appends at the exact last revision and reports the actual one on a stale revision', async () => {
        appended(await store.append(stream('a'), [event('e1'), event('e2')], { expectedRevision: 'no_stream' }));
        appended(await store.append(stream('a'), [event('e3')], { expectedRevision: 1 }));
        const stale = await store.append(stream('a'), [event('e4')], { expectedRevision: 1n });
        expect(stale).toEqual({ kind: 'version_conflict', stream: stream('a'), expected: 1n, actual: 2n });
      });

      it('refuses no_stream on a stream that exists and stream_exists on one that does not', async () => {
        appended(await store.append(stream('a'), [event('e1')], { expectedRevision: 'no_stream' }));
        expect(await store.append(stream('a'), [event('e2')], { expectedRevision: 'no_stream' })).toMatchObject({
          kind: 'version_conflict',
          actual: 0n,
        });
        expect(await store.append(stream('b'), [event('e3')], { expectedRevision: 'stream_exists' })).toMatchObject({
          kind: 'version_conflict',
          actual: 'no_stream',
        });
        expect(await store.append(stream('b'), [event('e3')], { expectedRevision: 0n })).toMatchObject({
          kind: 'version_conflict',
          actual: 'no_stream',
        });
        appended(await store.append(stream('a'), [event('e4')], { expectedRevision: 'stream_exists' }));
        appended(await store.append(stream('a'), [event('e5')], { expectedRevision: 'any' }));
        appended(await store.append(stream('c'), [event('e6')], { expectedRevision: 'any' }));
      });

      it('writes none of the events of a refused multi-event append', async () => {
        appended(await store.append(stream('a'), [event('e1')], { expectedRevision: 'no_stream' }));
        await store.append(stream('a'), [event('e2'), event('e3'), event('e4')], { expectedRevision: 5n });
        expect(read(await store.readStream(stream('a'))).map((e) => e.id)).toEqual(['e1']);
      });

      it('lets exactly one of several concurrent appends at the same revision through, without failing other streams', async () => {
        appended(await store.append(stream('a'), [event('base')], { expectedRevision: 'no_stream' }));
        const racing = Array.from({ length: 8 }, (_, index) =>
          store.append(stream('a'), [event(`r${index}-1`), event(`r${index}-2`)], { expectedRevision: 0n }),
        );
        const bystanders = Array.from({ length: 4 }, (_, index) =>
          store.append(stream(`other${index}`), [event(`o${index}`)], { expectedRevision: 'no_stream' }),
        );
        const results = await Promise.all(racing);
        expect(results.filter((r) => r.kind === 'appended')).toHaveLength(1);
        expect(results.filter((r) => r.kind === 'version_conflict')).toHaveLength(7);
        for (const result of await Promise.all(bystanders)) appended(result);
        expect(read(await store.readStream(stream('a')))).toHaveLength(3);
      });
    });

    describe('idempotent re-append', () => {
      it('returns the first result again and writes nothing when the same ids are appended again', async () => {
        const events = [event('e1'), event('e2'), event('e3')];
        const first = appended(await store.append(stream('a'), events, { expectedRevision: 'no_stream' }));
        const again = appended(await store.append(stream('a'), events, { expectedRevision: 'no_stream' }));
        const againAny = appended(await store.append(stream('a'), events, { expectedRevision: 'any' }));
        expect(again.nextExpectedRevision).toBe(first.nextExpectedRevision);
        expect(againAny.nextExpectedRevision).toBe(first.nextExpectedRevision);
        expect(read(await store.readStream(stream('a'))).map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
      });

      it('re-appends a later append idempotently with its own expected revision', async () => {
        appended(await store.append(stream('a'), [event('e1')], { expectedRevision: 'no_stream' }));
        const second = appended(await store.append(stream('a'), [event('e2'), event('e3')], { expectedRevision: 0n }));
        const again = appended(await store.append(stream('a'), [event('e2'), event('e3')], { expectedRevision: 0n }));
        expect(again.nextExpectedRevision).toBe(second.nextExpectedRevision);
        expect(read(await store.readStream(stream('a')))).toHaveLength(3);
      });

      it('recognizes a retried append at its expected revision after later appends', async () => {
        const first = appended(await store.append(stream('a'), [event('e1'), event('e2')], { expectedRevision: 'no_stream' }));
        appended(await store.append(stream('a'), [event('e3')], { expectedRevision: 1n }));
        const retried = appended(await store.append(stream('a'), [event('e1'), event('e2')], { expectedRevision: 'no_stream' }));
        expect(retried).toEqual(first);
        expect(await store.append(stream('a'), [event('e1'), event('other')], { expectedRevision: 'no_stream' })).toMatchObject({
          kind: 'version_conflict',
          actual: 2n,
        });
        expect(read(await store.readStream(stream('a'))).map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
      });
    });

    describe('read all', () => {
      it('returns events of every stream in the global order they were appended, page by page', async () => {
        const marker = appended(await store.append(stream('marker'), [event('m')], { expectedRevision: 'no_stream' }));
        appended(await store.append(stream('a'), [event('a1'), event('a2')], { expectedRevision: 'no_stream' }));
        appended(await store.append(stream('b'), [event('b1')], { expectedRevision: 'no_stream' }));
        appended(await store.append(stream('a'), [event('a3')], { expectedRevision: 1n }));
        appended(await store.append(stream('c'), [event('c1'), event('c2')], { expectedRevision: 'no_stream' }));

        const ours = (events: readonly RecordedEvent[]) => events.filter((e) => e.stream.startsWith(prefix));
        const all = ours(read(await store.readAll({ after: marker.lastPosition })));
        expect(all.map((e) => e.id)).toEqual(['a1', 'a2', 'b1', 'a3', 'c1', 'c2']);
        for (let index = 1; index < all.length; index += 1) {
          expect(all[index]!.position > all[index - 1]!.position).toBe(true);
        }

        const paged: RecordedEvent[] = [];
        let after = marker.lastPosition;
        for (;;) {
          const page = read(await store.readAll({ after, maxCount: 2 }));
          if (page.length === 0) break;
          paged.push(...ours(page));
          after = page[page.length - 1]!.position;
        }
        expect(paged.map((e) => e.id)).toEqual(all.map((e) => e.id));
      });
    });

    describe('catch-up subscription', () => {
      /** A subscriber that keeps its checkpoint with its work, as a projection does in its views. */
      const checkpointed = () => {
        const state = { seen: [] as string[], checkpoint: undefined as bigint | undefined };
        return {
          state,
          handle: (batch: SubscriptionBatch): void => {
            for (const e of batch.events) state.seen.push(e.id);
            state.checkpoint = batch.position;
          },
        };
      };

      it('resumes after a restart from the caller\'s checkpoint without gaps or duplicates', async () => {
        const subscriber = checkpointed();
        const filter = { streamPrefixes: [prefix] };
        for (let index = 0; index < 5; index += 1) {
          appended(await store.append(stream(`s${index % 2}`), [event(`before-${index}`)], { expectedRevision: 'any' }));
        }
        const first = store.subscribe({ filter, handle: subscriber.handle });
        await waitFor('the first five events', () => subscriber.state.seen.length >= 5);
        appended(await store.append(stream('s0'), [event('live-1'), event('live-2')], { expectedRevision: 'any' }));
        await waitFor('the two live events', () => subscriber.state.seen.length >= 7);
        await first.stop();
        expect(await first.ended).toEqual({ kind: 'stopped' });

        store = await harness.reopen(store);
        appended(await store.append(stream('s1'), [event('after-1')], { expectedRevision: 'any' }));
        appended(await store.append(stream('s2'), [event('after-2')], { expectedRevision: 'any' }));
        const second = store.subscribe({ after: subscriber.state.checkpoint, filter, handle: subscriber.handle });
        await waitFor('the events appended while stopped', () => subscriber.state.seen.length >= 9);
        await new Promise((resolve) => setTimeout(resolve, 100));
        await second.stop();

        expect(subscriber.state.seen).toEqual([
          'before-0', 'before-1', 'before-2', 'before-3', 'before-4', 'live-1', 'live-2', 'after-1', 'after-2',
        ]);
      });

      it('hands over batches in global order, each position at or past its events, never going back', async () => {
        const positions: bigint[] = [];
        const eventPositions: bigint[] = [];
        const marker = appended(await store.append(stream('order-start'), [event('o0')], { expectedRevision: 'any' }));
        for (let index = 1; index < 6; index += 1) {
          appended(await store.append(stream(`order-${index % 3}`), [event(`o${index}`)], { expectedRevision: 'any' }));
        }
        const subscription = store.subscribe({
          after: marker.lastPosition,
          filter: { streamPrefixes: [prefix] },
          handle: (batch) => {
            for (const e of batch.events) {
              expect(e.position).toBeLessThanOrEqual(batch.position);
              eventPositions.push(e.position);
            }
            positions.push(batch.position);
          },
        });
        await waitFor('five events', () => eventPositions.length >= 5);
        await subscription.stop();
        const sortedEvents = [...eventPositions].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
        expect(eventPositions).toEqual(sortedEvents);
        expect(eventPositions[0]).toBeGreaterThan(marker.lastPosition);
        for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThanOrEqual(positions[i - 1]!);
      });

      it('delivers only the events its filter lets through', async () => {
        const seen: string[] = [];
        appended(await store.append(stream('skip'), [event('x1')], { expectedRevision: 'any' }));
        appended(await store.append(stream('keep'), [event('k1', 'Kept'), event('x2', 'Dropped')], { expectedRevision: 'any' }));
        const subscription = store.subscribe({
          filter: { streamPrefixes: [stream('keep')], eventTypePrefixes: ['Kept'] },
          handle: (batch) => void seen.push(...batch.events.map((e) => e.id)),
        });
        appended(await store.append(stream('keep'), [event('k2', 'Kept')], { expectedRevision: 'any' }));
        await waitFor('both kept events', () => seen.length >= 2);
        await new Promise((resolve) => setTimeout(resolve, 100));
        await subscription.stop();
        expect(seen).toEqual(['k1', 'k2']);
      });

      it('delivers again, from the caller\'s checkpoint, the batch whose handler threw (at least once)', async () => {
        const filter = { streamPrefixes: [prefix] };
        const marker = appended(await store.append(stream('a'), [event('ok')], { expectedRevision: 'no_stream' }));
        appended(await store.append(stream('a'), [event('boom'), event('later')], { expectedRevision: 0n }));
        const committed = checkpointed();
        committed.state.checkpoint = marker.lastPosition - 1n;
        const failing = store.subscribe({
          after: committed.state.checkpoint,
          filter,
          handle: (batch) => {
            if (batch.events.some((e) => e.id === 'boom')) throw new Error('handler broke');
            committed.handle(batch);
          },
        });
        const ended = await failing.ended;
        expect(ended.kind).toBe('handler_failed');
        expect(committed.state.seen).not.toContain('boom');
        const retried = store.subscribe({ after: committed.state.checkpoint, filter, handle: committed.handle });
        await waitFor('the retried events', () => committed.state.seen.length >= 3);
        await retried.stop();
        expect(committed.state.seen).toEqual(['ok', 'boom', 'later']);
      });

      it('waits for an asynchronous handler before handing over the next batch', async () => {
        const filter = { streamPrefixes: [stream('slow')] };
        let inHandler = 0;
        let overlapped = false;
        const seen: string[] = [];
        const subscription = store.subscribe({
          filter,
          handle: async (batch) => {
            inHandler += 1;
            if (inHandler > 1) overlapped = true;
            await new Promise((resolve) => setTimeout(resolve, 20));
            seen.push(...batch.events.map((e) => e.id));
            inHandler -= 1;
          },
        });
        for (let index = 0; index < 4; index += 1) {
          appended(await store.append(stream('slow'), [event(`w${index}`)], { expectedRevision: 'any' }));
        }
        await waitFor('four events', () => seen.length >= 4);
        await subscription.stop();
        expect(overlapped).toBe(false);
        expect(seen).toEqual(['w0', 'w1', 'w2', 'w3']);
      });
    });

    describe('the last event (readLast, beside the port)', () => {
      it('is the event of the highest position, whichever stream it is in, with its data', async () => {
        const tailReadable = store as EventStore & Partial<TailReadable>;
        expect(typeof tailReadable.readLast).toBe('function');
        appended(await store.append(stream('a'), [event('e1')], { expectedRevision: 'no_stream' }));
        const last = appended(await store.append(stream('b'), [event('e2', 'LastHappened', { n: 2 })], { expectedRevision: 'no_stream' }));
        const tail = await tailReadable.readLast!();
        if (tail.kind !== 'tail' || tail.last === undefined) throw new Error(`expected a last event, got ${JSON.stringify(tail, bigintJson)}`);
        expect({ stream: tail.last.stream, type: tail.last.type, position: tail.last.position, data: tail.last.data() }).toEqual({
          stream: stream('b'),
          type: 'LastHappened',
          position: last.lastPosition,
          data: { n: 2 },
        });
      });
    });
  });
};
