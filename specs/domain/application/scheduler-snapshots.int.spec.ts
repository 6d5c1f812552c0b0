import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { AppendOptions, EventStore, EventToAppend } from '../../../domain/ports/event-store';
import { MemoryEventStore, type ReadResult, type ReadStreamOptions, type ReadStreamsOptions, type ReadStreamsResult } from '../../../adapters/event-store';
import { HarnessRuntime, RuntimeManager, schedulerAggregate } from '../../../domain/application';
import { readSchedulerSnapshots } from '../../../projections/scheduler-snapshots';
import { SCHEDULER_STREAM_PREFIX, schedulerStream } from '../../../domain/streams';
import { probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from './support/world';
import { openInvocationsIndex } from '../../../adapters/views/open-invocations-index';
import { sqliteViews } from '../../../adapters/views/sqlite';

/**
 * Scheduler snapshots in the views database: start() restores each scheduler from its snapshot instead
 * of folding its stream from the beginning, and the restored state is the folded one.
 */

/** Counts the scheduler streams read, to see whether start() folded them. */
class CountingStore extends MemoryEventStore {
  schedulerReads = 0;
  override async readStream(stream: string, options?: ReadStreamOptions): Promise<ReadResult> {
    if (stream.startsWith(SCHEDULER_STREAM_PREFIX)) this.schedulerReads++;
    return super.readStream(stream, options);
  }
  override async readStreams(streams: readonly string[], options?: ReadStreamsOptions): Promise<ReadStreamsResult> {
    this.schedulerReads += streams.filter((stream) => stream.startsWith(SCHEDULER_STREAM_PREFIX)).length;
    return super.readStreams(streams, options);
  }
}

const managerOn = (store: CountingStore, views: Database | undefined, ticks: number[] = []) =>
  new RuntimeManager({
    compiled: compiledScenario({ failurePolicy: 'continue', cadenceTicks: 1, maxActionAttempts: 100 }),
    manifest: manifest(),
    runtime: new HarnessRuntime(async (request, snapshot) => {
      ticks.push(snapshot.tick);
      return probeResult(request, []);
    }),
    store,
    ...(views === undefined ? {} : { openInvocations: openInvocationsIndex(store, views) }),
    episodeId: 'episode-1',
    clock: steppingClock(),
  });

const foldedScheduler = async (store: MemoryEventStore) => {
  const aggregate = schedulerAggregate(store, 'episode-1', POLICY, PARTICIPANT);
  const loaded = await aggregate.load();
  if (loaded.kind !== 'loaded') throw new Error(loaded.reason);
  return aggregate.state;
};

describe('scheduler snapshots', () => {
  let views: Database;
  beforeEach(() => {
    views = new BetterSqlite3(':memory:');
  });
  afterEach(() => views.close());

  it('are kept by the manager\'s view catch-up and equal the folded scheduler', async () => {
    const store = new CountingStore();
    const first = managerOn(store, views);
    await first.start();
    await first.advance(3);
    const snapshot = readSchedulerSnapshots(sqliteViews(views)).get(schedulerStream('episode-1', POLICY, PARTICIPANT));
    expect(snapshot?.state).toEqual(await foldedScheduler(store));
    expect(snapshot?.state.attemptsStarted).toBe(3);
    const read = await store.readStream(schedulerStream('episode-1', POLICY, PARTICIPANT));
    expect(snapshot?.revision).toBe(read.kind === 'read' ? read.events.length - 1 : -2);
  });

  it('let a restarted manager skip folding scheduler streams, and it goes on where the last one stopped', async () => {
    const store = new CountingStore();
    const first = managerOn(store, views);
    await first.start();
    await first.advance(3);
    const ticks: number[] = [];
    const second = managerOn(store, views, ticks);
    store.schedulerReads = 0;
    await second.start();
    expect(store.schedulerReads).toBe(0);
    expect(second.tick).toBe(first.tick);
    await second.advance(1);
    expect(ticks).toEqual([first.tick + 1]);
    expect((await foldedScheduler(store)).attemptsStarted).toBe(4);
    expect(second.schedulerStatus(POLICY, PARTICIPANT)).toEqual(await foldedScheduler(store));
  });

  it('are not needed: without a views database start() folds the scheduler streams', async () => {
    const store = new CountingStore();
    const first = managerOn(store, views);
    await first.start();
    await first.advance(2);
    const second = managerOn(store, undefined);
    store.schedulerReads = 0;
    await second.start();
    expect(store.schedulerReads).toBeGreaterThan(0);
    expect(second.schedulerStatus(POLICY, PARTICIPANT)).toEqual(await foldedScheduler(store));
  });

  it('are not needed either with a long history: a blank view makes start() fold a scheduler stream of many attempts whole', async () => {
    const store = new CountingStore();
    const first = managerOn(store, views);
    await first.start();
    await first.advance(50); // 100 scheduler events: more than recovery reads of a stream in one batch
    const second = managerOn(store, new BetterSqlite3(':memory:'));
    await second.start();
    expect(second.schedulerStatus(POLICY, PARTICIPANT)).toEqual(await foldedScheduler(store));
    expect(second.schedulerStatus(POLICY, PARTICIPANT)?.attemptsStarted).toBe(50);
    expect(second.tick).toBe(first.tick);
  });

  it('that are stale (events appended behind the views\' back) are caught up by the aggregate before it decides', async () => {
    const store = new CountingStore();
    const first = managerOn(store, views);
    await first.start();
    await first.advance(2);
    const stale = readSchedulerSnapshots(sqliteViews(views)).get(schedulerStream('episode-1', POLICY, PARTICIPANT));
    expect(stale?.state.attemptsStarted).toBe(2);
    const restored = schedulerAggregate(store, 'episode-1', POLICY, PARTICIPANT);
    expect(restored.restore(stale!.state, stale!.revision)).toBe(true);
    await store.append(
      schedulerStream('episode-1', POLICY, PARTICIPANT),
      [{ id: 'behind-the-views', type: 'SchedulerStopped', data: { type: 'SchedulerStopped', reason: 'failure_policy', action_instance_id: `${POLICY}:${PARTICIPANT}:2`, indeterminate_action_ids: [], at: '2026-04-11T11:00:00.000Z' } }],
      { expectedRevision: 'any' },
    );
    // Decided against the stale state, the append expects a revision the stream has passed: the
    // aggregate re-reads from there and decides again, so nothing appended behind the views is lost.
    const reset = await restored.handle({ type: 'ResetSharedClock', at: '2026-04-11T11:00:01.000Z' });
    expect(reset).toMatchObject({ kind: 'decided', answer: { kind: 'accepted' } });
    expect(restored.state.status).toBe('stopped');
    expect(restored.state.executionGeneration).toBe(1);
    expect(restored.state).toEqual(await foldedScheduler(store));
  });

  it('hands the link kept with a restored revision to the next append alone', async () => {
    const appends: AppendOptions[] = [];
    const store = new MemoryEventStore();
    const recording: EventStore = Object.assign(Object.create(store) as EventStore, {
      append: (stream: string, events: readonly EventToAppend[], options: AppendOptions) => (appends.push(options), store.append(stream, events, options)),
    });
    const written = schedulerAggregate(store, 'episode-1', POLICY, PARTICIPANT);
    expect(await written.handle({ type: 'ResetSharedClock', at: '2026-04-11T11:00:00.000Z' })).toMatchObject({ kind: 'decided' });
    const restored = schedulerAggregate(recording, 'episode-1', POLICY, PARTICIPANT);
    expect(restored.restore(written.state, 0, 'kept-link')).toBe(true);
    for (const second of [1, 2]) await restored.handle({ type: 'ResetSharedClock', at: `2026-04-11T11:00:0${second}.000Z` });
    expect(appends).toEqual([{ expectedRevision: 0, previousLink: 'kept-link' }, { expectedRevision: 1 }]);
  });
});
