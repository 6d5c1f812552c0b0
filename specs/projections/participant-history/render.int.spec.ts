import type { SqliteViews } from '../../../adapters/views/sqlite';
import { openSqliteEventStore } from '../../../adapters/event-store/sqlite/sqlite-event-store';
import type { EventStore } from '../../../domain/ports/event-store';
import { invocationStream } from '../../../domain/streams';
import {
  participantHistoryProjection,
  participantHistoryView,
  REBUILD_ADVICE,
  STORE_ADVICE,
  storedHistory,
  type HistoryUnavailable,
  type ParticipantHistoryViews,
  type ParticipantHistoryView,
} from '../../../projections/participant-history';
import { ProjectionRunner } from '../../../projections/runner';
import { openViews, STORES } from '../support/stores';
import { EPISODE, InvocationDriver, participant, runReturningInvocation } from '../support/world';

/**
 * The view is an index; the history is rendered from the store when asked. A views database that no
 * longer matches the store (damaged, or kept beside another store) answers `history_unavailable`,
 * naming the invocation and the rebuild that repairs it.
 */

const PROBER = participant('prober');
const SCOUT = participant('scout');
const GENERATED_AT = '2026-04-11T12:00:00Z';

const viewOf = (views: SqliteViews, store: EventStore, who: string): Promise<ParticipantHistoryView | HistoryUnavailable> =>
  participantHistoryView(views, store, who, EPISODE, { generatedAt: GENERATED_AT });

/** Two closed invocations of PROBER, one of SCOUT; the history caught up. */
const caughtUp = async (store: EventStore): Promise<{ views: SqliteViews; runner: ProjectionRunner<ParticipantHistoryViews>; prober: InvocationDriver; scout: InvocationDriver }> => {
  const prober = await runReturningInvocation(store, PROBER, 1);
  const scout = await runReturningInvocation(store, SCOUT, 1, 1);
  await runReturningInvocation(store, PROBER, 2);
  const views = openViews();
  const runner = new ProjectionRunner({ store, views, projections: [participantHistoryProjection] });
  expect((await runner.catchUp()).kind).toBe('caught_up');
  return { views, runner, prober, scout };
};

const damage = (views: SqliteViews, sql: string, invocation: string): void => {
  expect(views.database.prepare(`UPDATE participant_history_index SET ${sql} WHERE invocation_action_instance_id = ?`).run(invocation).changes).toBe(1);
};

describe.each(STORES)('rendering the participant history from the %s store', (_name, makeStore) => {
  it('answers history_unavailable when a row points past the end of its stream, and a rebuild repairs the view', async () => {
    const store = makeStore();
    const { views, runner, prober } = await caughtUp(store);
    const before = await viewOf(views, store, PROBER);
    expect('kind' in before).toBe(false);

    damage(views, 'closing_revision = closing_revision + 3', prober.id);
    const expected: HistoryUnavailable = {
      kind: 'history_unavailable',
      invocation_action_instance_id: prober.id,
      reason: expect.stringMatching(/closed at revision \d+ of stream 'invocation-.*', but the stream ends at revision \d+$/) as string,
      advice: REBUILD_ADVICE,
    };
    expect(await storedHistory(views, store)).toEqual(expected);
    expect(await viewOf(views, store, PROBER)).toEqual(expected);
    expect(REBUILD_ADVICE).toContain('raes-tools projections rebuild participant-history');
    // A question that does not reach the damaged row is answered.
    expect(await viewOf(views, store, SCOUT)).toEqual(expect.objectContaining({ participant_address: SCOUT }));

    expect((await runner.rebuild('participant-history')).kind).toBe('caught_up');
    expect(await viewOf(views, store, PROBER)).toEqual(before);
    await store.close();
  });

  it('answers history_unavailable when a row names a stream the store does not hold', async () => {
    const store = makeStore();
    const { views, prober } = await caughtUp(store);
    damage(views, `invocation_action_instance_id = 'missing-invocation'`, prober.id);
    expect(await storedHistory(views, store, { participant: PROBER })).toEqual({
      kind: 'history_unavailable',
      invocation_action_instance_id: 'missing-invocation',
      reason: expect.stringContaining(`stream '${invocationStream(EPISODE, 'missing-invocation')}', but the store holds no such stream`) as string,
      advice: REBUILD_ADVICE,
    });
    await store.close();
  });

  it('answers history_unavailable when a row’s revision is not where its stream closed', async () => {
    const store = makeStore();
    const { views, prober } = await caughtUp(store);
    damage(views, 'closing_revision = closing_revision - 1', prober.id);
    expect(await storedHistory(views, store, { invocation: prober.id })).toEqual({
      kind: 'history_unavailable',
      invocation_action_instance_id: prober.id,
      reason: expect.stringMatching(/, but that event is ToolActionSettled$/) as string,
      advice: REBUILD_ADVICE,
    });
    await store.close();
  });

  it('answers history_unavailable when a row names another participant than its stream', async () => {
    const store = makeStore();
    const { views, prober } = await caughtUp(store);
    damage(views, `participant_address = '${SCOUT}'`, prober.id);
    expect(await viewOf(views, store, SCOUT)).toEqual({
      kind: 'history_unavailable',
      invocation_action_instance_id: prober.id,
      reason: expect.stringContaining(`for participant ${SCOUT} in episode ${EPISODE}, but the stream is ${PROBER}'s`) as string,
      advice: REBUILD_ADVICE,
    });
    await store.close();
  });
});

describe('rendering the participant history when the store cannot be read', () => {
  it('answers history_unavailable with the store’s reason, and asks to retry rather than rebuild', async () => {
    const opened = openSqliteEventStore({ path: ':memory:' });
    if (opened.kind === 'storage_failure') throw new Error(opened.reason);
    const { views, prober } = await caughtUp(opened);
    await opened.close();
    expect(await storedHistory(views, opened)).toEqual({
      kind: 'history_unavailable',
      invocation_action_instance_id: prober.id,
      reason: expect.stringContaining(`reading stream '${prober.stream}' failed`) as string,
      advice: STORE_ADVICE,
    });
  });
});
