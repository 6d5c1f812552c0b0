import type { Database } from 'better-sqlite3';
import type { EventStore } from '../../../adapters/event-store/port';
import {
  participantHistoryProjection,
  participantHistoryView,
  storedHistory,
  verifyHistory,
  type ParticipantHistoryView,
} from '../../../projections/participant-history';
import { ProjectionRunner } from '../../../projections/runner';
import { errorsOf, validators } from '../support/schemas';
import { openViews, STORES } from '../support/stores';
import { EPISODE, InvocationDriver, participant, runReturningInvocation } from '../support/world';

const PROBER = participant('prober');
const SCOUT = participant('scout');
const GENERATED_AT = '2026-04-11T12:00:00Z';

const view = (views: Database, who = PROBER): ParticipantHistoryView =>
  participantHistoryView(views, who, EPISODE, { generatedAt: GENERATED_AT });

const withoutToolContext = (history: ParticipantHistoryView): unknown => ({
  ...history,
  behavior_history: history.behavior_history.map(({ invocation_tool_context: _dropped, ...event }) => event),
});

/** Two participants, interleaved: returned, indeterminate + thrown, and one still open. */
const populate = async (store: EventStore): Promise<{ open: InvocationDriver }> => {
  const timedOut = new InvocationDriver(store, SCOUT, 1);
  await timedOut.open();
  await timedOut.activate();
  await runReturningInvocation(store, PROBER, 1);
  const lost = await timedOut.admit();
  await timedOut.dispatch(lost);
  await timedOut.reportUnknown(lost);
  await timedOut.throwFromHarness();
  await runReturningInvocation(store, PROBER, 2, 1);
  const open = new InvocationDriver(store, PROBER, 3);
  await open.open();
  await open.activate();
  const pending = await open.admit();
  await open.dispatch(pending);
  return { open };
};

describe.each(STORES)('the participant history on the %s store', (_name, makeStore) => {
  it('holds each closed invocation’s history, with invocation_tool_context on tool-action events', async () => {
    const store = makeStore();
    const views = openViews();
    await populate(store);
    await new ProjectionRunner({ store, views, projections: [participantHistoryProjection], pageSize: 3 }).catchUp();

    const prober = view(views);
    // attempt 1: 2 completed + 1 withheld + outer; attempt 2: 1 completed + 1 withheld + outer.
    expect(prober.behavior_history).toHaveLength(12 + 9);
    expect(prober.behavior_history.filter((e) => e.invocation_tool_context !== undefined)).toHaveLength(9 + 6);
    expect(prober.behavior_history[0]).toEqual(
      expect.objectContaining({
        event_type: 'action_attempted',
        invocation_tool_context: expect.objectContaining({ admission_ordinal: 1, settlement: 'completed', tool_call_id: 'call-1' }),
      }),
    );
    const scout = view(views, SCOUT);
    expect(scout.behavior_history.map((e) => [e.event_type, e.invocation_tool_context?.settlement, e.observation_status])).toEqual([
      ['action_attempted', 'indeterminate', null],
      ['state_transition_recorded', 'indeterminate', null],
      ['observation_emitted', 'indeterminate', 'orphaned_action'],
    ]);
    expect(verifyHistory(storedHistory(views))).toEqual([]);
    await store.close();
  });

  it('validates against RAES participant-history-view-v1 without the extension field, and whole against the extension', async () => {
    const store = makeStore();
    const views = openViews();
    await populate(store);
    await new ProjectionRunner({ store, views, projections: [participantHistoryProjection] }).catchUp();
    for (const history of [view(views), view(views, SCOUT)]) {
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
    const before = view(views).behavior_history.length;
    expect(view(views).behavior_history.some((e) => e.invocation_tool_context?.invocation_action_instance_id === open.id)).toBe(false);

    await open.admit();
    await open.returnResult();
    await new ProjectionRunner({ store, views, projections: [participantHistoryProjection], pageSize: 2 }).catchUp();
    const after = view(views).behavior_history;
    // At return the dispatched action without outcome settles indeterminate, the undispatched one withheld.
    expect(after.length - before).toBe(9);
    expect(after.slice(before).map((e) => e.invocation_tool_context?.settlement ?? 'outer')).toEqual([
      'indeterminate', 'indeterminate', 'indeterminate', 'withheld', 'withheld', 'withheld', 'outer', 'outer', 'outer',
    ]);
    expect(verifyHistory(storedHistory(views, { invocation: open.id }))).toEqual([]);
    expect(views.prepare('SELECT count(*) FROM participant_history_pending').pluck().get()).toBe(0);
    await store.close();
  });

  it('rebuilds from scratch into the same views, whatever the page size', async () => {
    const store = makeStore();
    const views = openViews();
    await populate(store);
    const runner = new ProjectionRunner({ store, views, projections: [participantHistoryProjection], pageSize: 5 });
    await runner.catchUp();
    const first = [view(views), view(views, SCOUT)];
    await runner.rebuild('participant-history');
    expect([view(views), view(views, SCOUT)]).toEqual(first);

    const other = openViews();
    await new ProjectionRunner({ store, views: other, projections: [participantHistoryProjection], pageSize: 1000 }).catchUp();
    expect([view(other), view(other, SCOUT)]).toEqual(first);
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
      apply: (_views: Database, event: { type: string }) => {
        if (event.type === 'InvocationClosed') throw new Error('refused');
      },
    };
    // participant-history runs first in the page, then the failing projection rolls the whole page back.
    const runner = new ProjectionRunner({ store, views, projections: [participantHistoryProjection, failing] });
    expect((await runner.catchUp()).kind).toBe('projection_failed');
    expect(view(views).behavior_history).toEqual([]);
    expect(runner.checkpointOf('participant-history')).toBeUndefined();

    const healthy = new ProjectionRunner({ store, views, projections: [participantHistoryProjection] });
    await healthy.catchUp();
    expect(view(views).behavior_history).toHaveLength(12);
    await store.close();
  });
});
