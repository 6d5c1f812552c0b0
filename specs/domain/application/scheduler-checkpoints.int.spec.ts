import { join } from 'node:path';
import { MemoryEventStore, type ReadResult, type ReadStreamBackwardsOptions, type ReadStreamOptions } from '../../../adapters/event-store';
import type { EventStore } from '../../../domain/ports/event-store';
import { schedulerAggregate } from '../../../domain/application';
import type { SchedulerAggregate } from '../../../domain/application/aggregates';
import { SCHEDULER_CHECKPOINT_ATTEMPTS, type SchedulerCommand, type SchedulerPolicy } from '../../../domain/scheduler';
import { openSqliteOrThrow } from '../../adapters/event-store/sqlite/open-sqlite';
import { makeTempDir } from '../../adapters/event-store/support/temp-dir';

/**
 * A scheduler's stream records its state every SCHEDULER_CHECKPOINT_ATTEMPTS attempts; a scheduler
 * loaded from its latest checkpoint reads the stream back from its end to it and holds the state and
 * revision a fold from the stream's start gives, on the in-memory store and on a SQLite file.
 */

const at = '2026-01-01T00:00:00.000Z';
const EPISODE = 'episode-1';
const POLICY_ADDRESS = 'participant.autonomous-execution.s';
const PARTICIPANT_ADDRESS = 'participant.behavior.a';

const policy: SchedulerPolicy = {
  policy_address: POLICY_ADDRESS,
  participant_address: PARTICIPANT_ADDRESS,
  clock_address: 'time.clock.k',
  action_order: ['participant.action-contract.x'],
  start_tick: 0,
  cadence_ticks: 1,
  max_action_attempts: 10_000,
  max_in_flight: 2,
  failure_policy: 'continue',
};

/** Counts the events each kind of read hands out. */
class CountingReads implements EventStore {
  forwardEvents = 0;
  backwardEvents = 0;
  backwardReads = 0;
  constructor(private readonly inner: EventStore) {}
  append: EventStore['append'] = (stream, events, options) => this.inner.append(stream, events, options);
  readStreams: EventStore['readStreams'] = (streams, options) => this.inner.readStreams(streams, options);
  readAll: EventStore['readAll'] = (options) => this.inner.readAll(options);
  subscribe: EventStore['subscribe'] = (options) => this.inner.subscribe(options);
  close: EventStore['close'] = () => this.inner.close();
  async readStream(stream: string, options?: ReadStreamOptions): Promise<ReadResult> {
    const read = await this.inner.readStream(stream, options);
    if (read.kind === 'read') this.forwardEvents += read.events.length;
    return read;
  }
  async readStreamBackwards(stream: string, options: ReadStreamBackwardsOptions): Promise<ReadResult> {
    const read = await this.inner.readStreamBackwards(stream, options);
    this.backwardReads += 1;
    if (read.kind === 'read') this.backwardEvents += read.events.length;
    return read;
  }
}

const handled = async (aggregate: SchedulerAggregate, command: SchedulerCommand): Promise<void> => {
  const result = await aggregate.handle(command);
  if (result.kind !== 'decided' || result.answer.kind !== 'accepted') throw new Error(`${command.type} was not accepted: ${JSON.stringify(result.answer)}`);
};

/** `attempts` attempts, two in flight at a time and finished out of order, then `resets` clock resets. */
const writeScheduler = async (store: EventStore, attempts: number, resets = 0): Promise<void> => {
  const aggregate = schedulerAggregate(store, EPISODE, POLICY_ADDRESS, PARTICIPANT_ADDRESS);
  let tick = 0;
  for (let attempt = 1; attempt <= attempts; attempt += 2) {
    await handled(aggregate, { type: 'StartAttempt', policy, tick: tick++, at });
    if (attempt + 1 <= attempts) await handled(aggregate, { type: 'StartAttempt', policy, tick: tick++, at });
    if (attempt + 1 <= attempts) await handled(aggregate, { type: 'FinishAttempt', policy, attempt: attempt + 1, outcome: 'succeeded', indeterminate_action_ids: [], at });
    await handled(aggregate, { type: 'FinishAttempt', policy, attempt, outcome: 'failed', indeterminate_action_ids: [], at });
  }
  for (let reset = 0; reset < resets; reset += 1) await handled(aggregate, { type: 'ResetSharedClock', at });
  // One attempt left in flight, as a crash leaves it.
  await handled(aggregate, { type: 'StartAttempt', policy, tick: tick++, at });
};

const loaded = async (store: EventStore, how: 'from the start' | 'from its checkpoint'): Promise<SchedulerAggregate> => {
  const aggregate = schedulerAggregate(store, EPISODE, POLICY_ADDRESS, PARTICIPANT_ADDRESS);
  const result = how === 'from the start' ? await aggregate.load() : await aggregate.loadFromCheckpoint();
  if (result.kind !== 'loaded') throw new Error(result.reason);
  return aggregate;
};

const streamLength = async (store: EventStore): Promise<number> => {
  const read = await store.readStream((await loaded(store, 'from the start')).stream);
  if (read.kind !== 'read') throw new Error(read.reason);
  return read.events.length;
};

const stores: ReadonlyArray<readonly [string, () => { readonly store: EventStore; readonly done: () => Promise<void> }]> = [
  ['in memory', () => {
    const store = new MemoryEventStore();
    return { store, done: () => store.close() };
  }],
  ['SQLite', () => {
    const dir = makeTempDir('scheduler-checkpoints');
    const store = openSqliteOrThrow(join(dir.path, 'events.sqlite'));
    return { store, done: async () => { await store.close(); dir.remove(); } };
  }],
];

describe('scheduler checkpoints', () => {
  describe.each(stores)('on the %s store', (_name, open) => {
    let store: EventStore;
    let done: () => Promise<void>;
    beforeEach(() => {
      ({ store, done } = open());
    });
    afterEach(() => done());

    it('are written every SCHEDULER_CHECKPOINT_ATTEMPTS attempts, and a load from the latest reads only the events since', async () => {
      const attempts = 5 * SCHEDULER_CHECKPOINT_ATTEMPTS + 10;
      await writeScheduler(store, attempts);
      const read = await store.readStream((await loaded(store, 'from the start')).stream);
      if (read.kind !== 'read') throw new Error(read.reason);
      expect(read.events.filter((event) => event.type === 'SchedulerCheckpointed')).toHaveLength(5);

      const full = await loaded(store, 'from the start');
      const counting = new CountingReads(store);
      const fromCheckpoint = await loaded(counting, 'from its checkpoint');
      expect(fromCheckpoint.state).toEqual(full.state);
      expect(fromCheckpoint.state.inFlight.size).toBe(1);
      expect(counting.forwardEvents).toBe(0);
      // One read back reaches the checkpoint: the stream's start was never read.
      expect(read.events.length).toBeGreaterThan(3 * counting.backwardEvents);
      expect(counting.backwardReads).toBe(1);
      // Its next command appends where the stream ends: the revision it holds is the stream's last.
      await handled(fromCheckpoint, { type: 'FinishAttempt', policy, attempt: attempts + 1, outcome: 'succeeded', indeterminate_action_ids: [], at });
      expect(await streamLength(store)).toBe(read.events.length + 1);
    });

    it('looks further back, page by page, when the latest checkpoint is more than a page before the end', async () => {
      await writeScheduler(store, SCHEDULER_CHECKPOINT_ATTEMPTS + 1, 600);
      const full = await loaded(store, 'from the start');
      const counting = new CountingReads(store);
      const fromCheckpoint = await loaded(counting, 'from its checkpoint');
      expect(fromCheckpoint.state).toEqual(full.state);
      expect(fromCheckpoint.state.executionGeneration).toBe(600);
      expect(counting.backwardReads).toBeGreaterThan(1);
      expect(counting.backwardEvents).toBeLessThan(await streamLength(store));
      expect(counting.forwardEvents).toBe(0);
    });

    it('leave a scheduler as it was when its latest checkpoint cannot be read', async () => {
      await writeScheduler(store, 3);
      const stream = (await loaded(store, 'from the start')).stream;
      const length = await streamLength(store);
      const appended = await store.append(stream, [{ id: 'unreadable-checkpoint', type: 'SchedulerCheckpointed', data: { type: 'SomethingElse' } }], { expectedRevision: BigInt(length - 1) });
      expect(appended.kind).toBe('appended');
      const aggregate = schedulerAggregate(store, EPISODE, POLICY_ADDRESS, PARTICIPANT_ADDRESS);
      const result = await aggregate.loadFromCheckpoint();
      expect(result.kind).toBe('unavailable');
      expect(aggregate.state.attemptsStarted).toBe(0);
      // Nothing folded: a snapshot may still be restored, which only an aggregate at revision -1 takes.
      expect(aggregate.restore(aggregate.state, 0)).toBe(true);
    });

    it('fold the whole stream back when it has no checkpoint, and stop at what a restored snapshot already holds', async () => {
      await writeScheduler(store, SCHEDULER_CHECKPOINT_ATTEMPTS - 1, 300);
      const full = await loaded(store, 'from the start');
      const fromCheckpoint = await loaded(store, 'from its checkpoint');
      expect(fromCheckpoint.state).toEqual(full.state);

      const length = await streamLength(store);
      const partial = schedulerAggregate(store, EPISODE, POLICY_ADDRESS, PARTICIPANT_ADDRESS);
      const head = await store.readStream(partial.stream, { maxCount: length - 5 });
      if (head.kind !== 'read') throw new Error(head.reason);
      partial.fold(head.events);
      const counting = new CountingReads(store);
      const resumed = schedulerAggregate(counting, EPISODE, POLICY_ADDRESS, PARTICIPANT_ADDRESS);
      expect(resumed.restore(partial.state, length - 6)).toBe(true);
      const result = await resumed.loadFromCheckpoint();
      expect(result.kind).toBe('loaded');
      expect(resumed.state).toEqual(full.state);
      expect(counting.backwardReads).toBe(1);
      expect(counting.forwardEvents).toBe(0);
    });
  });
});
