import { MemoryEventStore } from '../../../adapters/event-store/memory/memory-event-store';
import { MemoryViews } from '../../../adapters/views/memory';
import type { SqliteViews } from '../../../adapters/views/sqlite';
import type { EventStore, RecordedEvent } from '../../../domain/ports/event-store';
import type { ViewsPort } from '../../../domain/ports/views';
import { outerActionInstanceId, toolActionInstanceId } from '../../../domain/addresses';
import {
  ALL_PROJECTIONS,
  childOperations,
  getOperation,
  listOpenInvocations,
  listEpisodes,
  listSchedulers,
  ProjectionRunner,
  storedHistory,
  type AllProjectionViews,
  type Projection,
} from '../../../projections';
import { readSchedulerSnapshots, schedulerSnapshotsProjection, type SchedulerSnapshotsViews } from '../../../projections/scheduler-snapshots';
import type { OpenInvocationsViews } from '../../../projections/open-invocations';
import { openViews } from '../../projections/support/stores';
import { EPISODE, InvocationDriver, participant, POLICY, runReturningInvocation, SchedulerDriver, tick } from '../../projections/support/world';

type EveryView = ViewsPort & AllProjectionViews & OpenInvocationsViews & SchedulerSnapshotsViews;

const PROBER = participant('prober');
const SCOUT = participant('scout');

/** Two participants' invocations (returned, thrown with an indeterminate action, one still open) and their schedulers. */
const populate = async (store: EventStore): Promise<void> => {
  const prober = new SchedulerDriver(store, PROBER);
  const scout = new SchedulerDriver(store, SCOUT);
  await prober.run({ type: 'StartAttempt', policy: prober.policy, tick: 1, at: tick() });
  await scout.run({ type: 'StartAttempt', policy: scout.policy, tick: 1, at: tick() });
  const timedOut = new InvocationDriver(store, SCOUT, 1);
  await timedOut.open();
  await timedOut.activate();
  await runReturningInvocation(store, PROBER, 1);
  const lost = await timedOut.admit();
  await timedOut.dispatch(lost);
  await timedOut.reportUnknown(lost);
  await timedOut.throwFromHarness();
  await prober.run({ type: 'FinishAttempt', policy: prober.policy, attempt: 1, outcome: 'succeeded', indeterminate_action_ids: [], at: tick() });
  await scout.run({ type: 'FinishAttempt', policy: scout.policy, attempt: 1, outcome: 'succeeded', indeterminate_action_ids: [lost], at: tick() });
  await prober.run({ type: 'StartAttempt', policy: prober.policy, tick: 2, at: tick() });
  const open = new InvocationDriver(store, PROBER, 2);
  await open.open();
  await open.activate();
  const pending = await open.admit();
  await open.dispatch(pending);
};

const PROJECTIONS: readonly Projection<EveryView>[] = [...ALL_PROJECTIONS, schedulerSnapshotsProjection];

/** Everything the queries over the views answer, as one value to compare. */
const answers = async (views: SqliteViews | MemoryViews, store: EventStore) => {
  const history = await storedHistory(views, store, {});
  const outer = [outerActionInstanceId(POLICY, PROBER, 1), outerActionInstanceId(POLICY, SCOUT, 1), outerActionInstanceId(POLICY, PROBER, 2)];
  return {
    open: listOpenInvocations(views),
    history,
    operations: outer.map((id) => ({ outer: getOperation(views, EPISODE, id), children: childOperations(views, EPISODE, id), first: getOperation(views, EPISODE, toolActionInstanceId(id, 1)) })),
    schedulers: listSchedulers(views),
    scout: listSchedulers(views, { participant: SCOUT }),
    episodes: listEpisodes(views),
    snapshots: [...readSchedulerSnapshots(views)],
    checkpoints: PROJECTIONS.map((projection) => views.checkpoints.read(projection.name)),
  };
};

describe('the views port', () => {
  it('gives the same answers kept in memory as kept in SQLite, after one catch-up or many small pages', async () => {
    const store = new MemoryEventStore();
    await populate(store);
    const sqlite = openViews();
    const memory = new MemoryViews();
    await new ProjectionRunner<EveryView>({ store, views: sqlite, projections: PROJECTIONS }).catchUp();
    await new ProjectionRunner<EveryView>({ store, views: memory, projections: PROJECTIONS, pageSize: 3 }).catchUp();

    const fromSqlite = await answers(sqlite, store);
    expect(fromSqlite.open).toHaveLength(1);
    expect(fromSqlite.history).toEqual(expect.objectContaining({ kind: 'history' }));
    expect(fromSqlite.schedulers).toHaveLength(2);
    expect(fromSqlite.operations[1]?.children).toHaveLength(1);
    expect(await answers(memory, store)).toEqual(fromSqlite);
  });

  it('rolls a page back on both when a projection throws, and both resume from the same checkpoint', async () => {
    const store = new MemoryEventStore();
    await populate(store);
    const read = await store.readAll();
    if (read.kind !== 'read') throw new Error(read.reason);
    const events: readonly RecordedEvent[] = read.events;
    const failAt = events[Math.floor(events.length / 2)]!.position;
    let failing = true;
    const failingOnce: Projection<EveryView> = {
      name: 'failing-once',
      version: 1,
      setup: () => {},
      reset: () => {},
      apply: (_views, event) => {
        if (failing && event.position === failAt) throw new Error('projection failure for the spec');
      },
    };
    const results = [];
    for (const views of [openViews(), new MemoryViews()]) {
      failing = true;
      const runner = new ProjectionRunner<EveryView>({ store, views, projections: [...PROJECTIONS, failingOnce], pageSize: 4 });
      const failed = await runner.catchUp();
      expect(failed).toEqual(expect.objectContaining({ kind: 'projection_failed', projection: 'failing-once', position: failAt }));
      const stoppedAt = PROJECTIONS.map((projection) => views.checkpoints.read(projection.name)?.position ?? null);
      for (const position of stoppedAt) expect(position === null || position < failAt).toBe(true);
      failing = false;
      expect(await runner.catchUp()).toEqual(expect.objectContaining({ kind: 'caught_up' }));
      results.push({ stoppedAt, answers: await answers(views, store) });
    }
    expect(results[1]).toEqual(results[0]);
  });
});
