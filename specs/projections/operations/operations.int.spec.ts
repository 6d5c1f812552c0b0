import { childOperations, getOperation, operationsProjection, type OperationStatus } from '../../../projections/operations';
import { ProjectionRunner } from '../../../projections/runner';
import { errorsOf, validators } from '../support/schemas';
import { openViews, STORES } from '../support/stores';
import { EPISODE, InvocationDriver, OUTER, participant, PROBE, SchedulerDriver, tick } from '../support/world';

const PROBER = participant('prober');
const BASE_FIELDS = ['schema_version', 'operation_id', 'domain', 'state', 'submitted_at', 'updated_at', 'diagnostics'];

const baseFieldsOf = (status: OperationStatus): Record<string, unknown> =>
  Object.fromEntries(Object.entries(status).filter(([key]) => BASE_FIELDS.includes(key)));

const expectValid = (status: OperationStatus | undefined): void => {
  expect(status).toBeDefined();
  expect(errorsOf(validators.raesOperationStatus, baseFieldsOf(status!))).toEqual([]);
  expect(errorsOf(validators.operationStatusExtension(), status)).toEqual([]);
};

describe.each(STORES)('operations on the %s store', (_name, makeStore) => {
  it('follows the outer operation and its tool actions from admission to settlement and resolution', async () => {
    const store = makeStore();
    const views = openViews();
    const runner = new ProjectionRunner({ store, views, projections: [operationsProjection], pageSize: 4 });
    const scheduler = new SchedulerDriver(store, PROBER);
    await scheduler.run({ type: 'StartAttempt', policy: scheduler.policy, tick: 1, at: tick() });
    const invocation = new InvocationDriver(store, PROBER, 1);
    await runner.catchUp();
    expect(getOperation(views, EPISODE, invocation.id)).toEqual(
      expect.objectContaining({ operation_kind: 'outer_action', state: 'scheduled', parent_operation_id: null, action_contract_address: OUTER }),
    );

    await invocation.open();
    await invocation.activate();
    const completed = await invocation.admit();
    await invocation.dispatch(completed);
    await invocation.complete(completed);
    const lost = await invocation.admit();
    await invocation.dispatch(lost);
    const undispatched = await invocation.admit();
    await runner.catchUp();
    expect(getOperation(views, EPISODE, invocation.id)?.state).toBe('dispatched');
    expect(childOperations(views, EPISODE, invocation.id).map((op) => [op.operation_id, op.state, op.settlement])).toEqual([
      [completed, 'settled', 'completed'],
      [lost, 'dispatched', null],
      [undispatched, 'admitted', null],
    ]);
    for (const op of childOperations(views, EPISODE, invocation.id)) expectValid(op);

    await invocation.returnResult();
    await scheduler.run({ type: 'FinishAttempt', policy: scheduler.policy, attempt: 1, outcome: 'succeeded', indeterminate_action_ids: [lost], at: tick() });
    await invocation.resolve(lost);
    await runner.catchUp();

    const outer = getOperation(views, EPISODE, invocation.id);
    expect(outer).toEqual(
      expect.objectContaining({ state: 'settled', settlement: 'returned', attempt_outcome: 'succeeded', participant_address: PROBER }),
    );
    expectValid(outer);
    const children = childOperations(views, EPISODE, invocation.id);
    expect(children.map((op) => [op.state, op.settlement, op.admission_ordinal, op.parent_operation_id])).toEqual([
      ['settled', 'completed', 1, invocation.id],
      ['settled', 'indeterminate', 2, invocation.id],
      ['settled', 'withheld', 3, invocation.id],
    ]);
    expect(children[1]).toEqual(
      expect.objectContaining({
        action_contract_address: PROBE,
        resolution: { effect: 'absent', evidence_ref: 'evidence.operator-review', resolved_at: expect.any(String) },
        diagnostics: [{ reason: expect.any(String) }],
      }),
    );
    expect(children[2]?.diagnostics).toEqual([{ reason: 'invocation_closed' }]);
    for (const op of children) expectValid(op);
    expect(getOperation(views, EPISODE, 'no-such-operation')).toBeUndefined();
    await store.close();
  });

  it('records an invocation closed by recovery as threw, with its dispatched action indeterminate', async () => {
    const store = makeStore();
    const views = openViews();
    const invocation = new InvocationDriver(store, PROBER, 2);
    await invocation.open();
    await invocation.activate();
    const dispatched = await invocation.admit();
    await invocation.dispatch(dispatched);
    const admitted = await invocation.admit();
    await invocation.recover();
    const runner = new ProjectionRunner({ store, views, projections: [operationsProjection] });
    await runner.catchUp();
    const outer = getOperation(views, EPISODE, invocation.id);
    expect(outer).toEqual(expect.objectContaining({ state: 'settled', settlement: 'threw', diagnostics: [{ reason: 'recovered after a restart' }] }));
    expectValid(outer);
    expect(getOperation(views, EPISODE, dispatched)?.settlement).toBe('indeterminate');
    expect(getOperation(views, EPISODE, admitted)?.settlement).toBe('withheld');
    await store.close();
  });

  it('rebuilds into the same operations', async () => {
    const store = makeStore();
    const views = openViews();
    const invocation = new InvocationDriver(store, PROBER, 3);
    await invocation.open();
    await invocation.activate();
    const id = await invocation.admit();
    await invocation.dispatch(id);
    await invocation.complete(id);
    await invocation.returnResult();
    const runner = new ProjectionRunner({ store, views, projections: [operationsProjection], pageSize: 2 });
    await runner.catchUp();
    const before = [getOperation(views, EPISODE, invocation.id), ...childOperations(views, EPISODE, invocation.id)];
    await runner.rebuild();
    expect([getOperation(views, EPISODE, invocation.id), ...childOperations(views, EPISODE, invocation.id)]).toEqual(before);
    await store.close();
  });

  it('keeps the operations of two episodes apart: one operation id, one row in each episode', async () => {
    const store = makeStore();
    const views = openViews();
    const other = 'episode-0002';
    // The same scenario in two episodes: the same invocation and tool action ids.
    const first = new InvocationDriver(store, PROBER, 1);
    const second = new InvocationDriver(store, PROBER, 1, other);
    expect(second.id).toBe(first.id);
    await first.open();
    await first.activate();
    const completed = await first.admit();
    await first.dispatch(completed);
    await first.complete(completed);
    await first.returnResult();
    await second.open();
    await second.activate();
    const pending = await second.admit();
    expect(pending).toBe(completed);
    await new ProjectionRunner({ store, views, projections: [operationsProjection] }).catchUp();

    expect(getOperation(views, EPISODE, first.id)).toEqual(expect.objectContaining({ episode_id: EPISODE, state: 'settled', settlement: 'returned' }));
    expect(getOperation(views, other, first.id)).toEqual(expect.objectContaining({ episode_id: other, state: 'dispatched', settlement: null }));
    expect(childOperations(views, EPISODE, first.id).map((op) => [op.episode_id, op.state, op.settlement])).toEqual([[EPISODE, 'settled', 'completed']]);
    expect(childOperations(views, other, first.id).map((op) => [op.episode_id, op.state, op.settlement])).toEqual([[other, 'admitted', null]]);
    expect(getOperation(views, 'episode-absent', first.id)).toBeUndefined();
    await store.close();
  });
});
