import type { SqliteViews } from '../../../adapters/views/sqlite';
import type { EventStore } from '../../../domain/ports/event-store';
import { invocationHistory, type BehaviorHistoryEvent, type InvocationEvent } from '../../../domain/invocation';
import {
  participantHistoryProjection,
  participantHistoryView,
  storedHistory,
  verifyHistory,
  type HistoryFilter,
  type ParticipantHistoryView,
} from '../../../projections/participant-history';
import { ProjectionRunner } from '../../../projections/runner';
import { errorsOf, validators } from '../support/schemas';
import { openViews, STORES } from '../support/stores';
import { EPISODE, InvocationDriver, participant, runReturningInvocation } from '../support/world';

const PROBER = participant('prober');
const SCOUT = participant('scout');
const GENERATED_AT = '2026-04-11T12:00:00Z';

const view = async (views: SqliteViews, store: EventStore, who = PROBER): Promise<ParticipantHistoryView> => {
  const rendered = await participantHistoryView(views, store, who, EPISODE, { generatedAt: GENERATED_AT });
  if ('kind' in rendered) throw new Error(`the history is unavailable: ${rendered.reason}`);
  return rendered;
};

const history = async (views: SqliteViews, store: EventStore, filter: HistoryFilter = {}): Promise<readonly BehaviorHistoryEvent[]> => {
  const rendered = await storedHistory(views, store, filter);
  if (rendered.kind !== 'history') throw new Error(`the history is unavailable: ${rendered.reason}`);
  return rendered.events;
};

const withoutToolContext = (history: ParticipantHistoryView): unknown => ({
  ...history,
  behavior_history: history.behavior_history.map(({ invocation_tool_context: _dropped, ...event }) => event),
});

/** Two participants, interleaved: returned, indeterminate + thrown, and one still open. */
const populate = async (store: EventStore): Promise<{ open: InvocationDriver; timedOut: InvocationDriver; lost: string; closed: InvocationDriver[] }> => {
  const timedOut = new InvocationDriver(store, SCOUT, 1);
  await timedOut.open();
  await timedOut.activate();
  const first = await runReturningInvocation(store, PROBER, 1);
  const lost = await timedOut.admit();
  await timedOut.dispatch(lost);
  await timedOut.reportUnknown(lost);
  await timedOut.throwFromHarness();
  const second = await runReturningInvocation(store, PROBER, 2, 1);
  const open = new InvocationDriver(store, PROBER, 3);
  await open.open();
  await open.activate();
  const pending = await open.admit();
  await open.dispatch(pending);
  return { open, timedOut, lost, closed: [first, timedOut, second] };
};

describe.each(STORES)('the participant history on the %s store', (_name, makeStore) => {
  it('holds each closed invocation’s history, with invocation_tool_context on tool-action events', async () => {
    const store = makeStore();
    const views = openViews();
    await populate(store);
    await new ProjectionRunner({ store, views, projections: [participantHistoryProjection], pageSize: 3 }).catchUp();

    const prober = await view(views, store);
    // attempt 1: 2 completed + 1 withheld + outer; attempt 2: 1 completed + 1 withheld + outer.
    expect(prober.behavior_history).toHaveLength(12 + 9);
    expect(prober.behavior_history.filter((e) => e.invocation_tool_context !== undefined)).toHaveLength(9 + 6);
    expect(prober.behavior_history[0]).toEqual(
      expect.objectContaining({
        event_type: 'action_attempted',
        invocation_tool_context: expect.objectContaining({ admission_ordinal: 1, settlement: 'completed', tool_call_id: 'call-1' }),
      }),
    );
    const scout = await view(views, store, SCOUT);
    expect(scout.behavior_history.map((e) => [e.event_type, e.invocation_tool_context?.settlement, e.observation_status])).toEqual([
      ['action_attempted', 'indeterminate', null],
      ['state_transition_recorded', 'indeterminate', null],
      ['observation_emitted', 'indeterminate', 'orphaned_action'],
    ]);
    expect(verifyHistory(await history(views, store))).toEqual([]);
    await store.close();
  });

  it('renders each closed invocation as the domain renders its stream up to the close, as the stored-events rows did', async () => {
    const store = makeStore();
    const views = openViews();
    const { timedOut, lost, closed } = await populate(store);
    // An operator's resolution after the close does not rewrite the recorded history.
    await timedOut.resolve(lost);
    await new ProjectionRunner({ store, views, projections: [participantHistoryProjection], pageSize: 4 }).catchUp();

    const upToClose = (driver: InvocationDriver): InvocationEvent[] =>
      driver.events.slice(0, driver.events.findIndex((event) => event.type === 'InvocationClosed') + 1);
    // What the previous view stored and rendered: the events without dispatches and resolutions.
    const asStoredBefore = (driver: InvocationDriver): InvocationEvent[] =>
      upToClose(driver).filter((event) => event.type !== 'ToolActionDispatched' && event.type !== 'ToolActionResolved');
    for (const driver of closed) {
      const rendered = await history(views, store, { invocation: driver.id });
      expect(rendered).toEqual(invocationHistory(upToClose(driver)));
      expect(rendered).toEqual(invocationHistory(asStoredBefore(driver)));
    }
    expect(await history(views, store)).toEqual(closed.flatMap((driver) => [...invocationHistory(upToClose(driver))]));
    expect(await history(views, store, { invocation: timedOut.id })).toHaveLength(3);
    await store.close();
  });

  it('keeps an index row per closed invocation, in closing order, naming the revision its stream closed at', async () => {
    const store = makeStore();
    const views = openViews();
    const { closed } = await populate(store);
    await new ProjectionRunner({ store, views, projections: [participantHistoryProjection], pageSize: 3 }).catchUp();
    const rows = views.database.prepare('SELECT * FROM participant_history_index ORDER BY seq').all() as Record<string, unknown>[];
    expect(rows.map(({ seq: _seq, ...row }) => row)).toEqual(
      closed.map((driver) => ({
        participant_address: driver.participantAddress,
        episode_id: EPISODE,
        invocation_action_instance_id: driver.id,
        closing_revision: driver.events.findIndex((event) => event.type === 'InvocationClosed'),
      })),
    );
    await store.close();
  });

  it('validates against RAES participant-history-view-v1 without the extension field, and whole against the extension', async () => {
    const store = makeStore();
    const views = openViews();
    await populate(store);
    await new ProjectionRunner({ store, views, projections: [participantHistoryProjection] }).catchUp();
    for (const history of [await view(views, store), await view(views, store, SCOUT)]) {
      expect(errorsOf(validators.raesHistoryView, withoutToolContext(history))).toEqual([]);
      expect(errorsOf(validators.historyViewExtension, history)).toEqual([]);
      expect(validators.raesHistoryView(history)).toBe(false);
    }
    await store.close();
  });

  it('shows nothing of an invocation until it closes, even across pages and a restarted runner', async () => {
    const store = makeStore();
    const views = openViews();
    const { open } = await populate(store);
    await new ProjectionRunner({ store, views, projections: [participantHistoryProjection], pageSize: 2 }).catchUp();
    const before = (await view(views, store)).behavior_history.length;
    expect((await view(views, store)).behavior_history.some((e) => e.invocation_tool_context?.invocation_action_instance_id === open.id)).toBe(false);

    await open.admit();
    await open.returnResult();
    await new ProjectionRunner({ store, views, projections: [participantHistoryProjection], pageSize: 2 }).catchUp();
    const after = (await view(views, store)).behavior_history;
    // At return the dispatched action without outcome settles indeterminate, the undispatched one withheld.
    expect(after.length - before).toBe(9);
    expect(after.slice(before).map((e) => e.invocation_tool_context?.settlement ?? 'outer')).toEqual([
      'indeterminate', 'indeterminate', 'indeterminate', 'withheld', 'withheld', 'withheld', 'outer', 'outer', 'outer',
    ]);
    expect(verifyHistory(await history(views, store, { invocation: open.id }))).toEqual([]);
    expect(views.database.prepare('SELECT count(*) FROM participant_history_open').pluck().get()).toBe(0);
    await store.close();
  });

  it('rebuilds from scratch into the same views, whatever the page size', async () => {
    const store = makeStore();
    const views = openViews();
    await populate(store);
    const runner = new ProjectionRunner({ store, views, projections: [participantHistoryProjection], pageSize: 5 });
    await runner.catchUp();
    const first = [await view(views, store), await view(views, store, SCOUT)];
    await runner.rebuild('participant-history');
    expect([await view(views, store), await view(views, store, SCOUT)]).toEqual(first);

    const other = openViews();
    await new ProjectionRunner({ store, views: other, projections: [participantHistoryProjection], pageSize: 1000 }).catchUp();
    expect([await view(other, store), await view(other, store, SCOUT)]).toEqual(first);
    await store.close();
  });

  it('leaves no history rows behind when a page rolls back', async () => {
    const store = makeStore();
    const views = openViews();
    await runReturningInvocation(store, PROBER, 1);
    const failing = {
      name: 'failing',
      version: 1,
      setup: () => undefined,
      reset: () => undefined,
      apply: (_views: SqliteViews, event: { type: string }) => {
        if (event.type === 'InvocationClosed') throw new Error('refused');
      },
    };
    // participant-history runs first in the page, then the failing projection rolls the whole page back.
    const runner = new ProjectionRunner({ store, views, projections: [participantHistoryProjection, failing] });
    expect((await runner.catchUp()).kind).toBe('projection_failed');
    expect((await view(views, store)).behavior_history).toEqual([]);
    expect(runner.checkpointOf('participant-history')).toBeUndefined();

    const healthy = new ProjectionRunner({ store, views, projections: [participantHistoryProjection] });
    await healthy.catchUp();
    expect((await view(views, store)).behavior_history).toHaveLength(12);
    await store.close();
  });
});
