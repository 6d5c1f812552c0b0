import { MemoryEventStore } from '../../../adapters/event-store/memory/memory-event-store';
import { auditOpenInvocation } from '../../../adapters/cli/audit-report';
import { InvocationDriver, participant } from '../../projections/support/world';

/** An invocation not closed yet, as the audit page shows it: each tool action where it stands. */

const rowOf = async (store: MemoryEventStore, driver: InvocationDriver) => {
  const row = await auditOpenInvocation(store, driver.stream);
  if (row === undefined || 'message' in row) throw new Error(`expected a row, got ${JSON.stringify(row)}`);
  return row;
};

describe('auditOpenInvocation', () => {
  it('shows each tool action admitted, dispatched or settled as its events arrive', async () => {
    const store = new MemoryEventStore();
    const driver = new InvocationDriver(store, participant('prober'), 1);
    expect(await auditOpenInvocation(store, driver.stream)).toBeUndefined();
    await driver.open();
    await driver.activate();
    expect(await rowOf(store, driver)).toMatchObject({ invocation_action_instance_id: driver.id, outer_status: null, closed_at: null, tool_actions: [] });

    const first = await driver.admit();
    const admitted = (await rowOf(store, driver)).tool_actions;
    expect(admitted).toEqual([
      expect.objectContaining({ action_instance_id: first, admission_ordinal: 1, settlement: 'admitted', dispatched_at: null, settled_at: null, status: null }),
    ]);
    expect(admitted[0]!.admitted_at).toEqual(expect.any(String));

    await driver.dispatch(first);
    expect((await rowOf(store, driver)).tool_actions[0]).toMatchObject({ settlement: 'dispatched', dispatched_at: expect.any(String), settled_at: null });

    await driver.complete(first);
    const second = await driver.admit();
    await driver.dispatch(second);
    await driver.reportUnknown(second);
    const settled = (await rowOf(store, driver)).tool_actions;
    expect(settled.map((action) => [action.action_instance_id, action.settlement, action.status])).toEqual([
      [first, 'completed', 'succeeded'],
      [second, 'indeterminate', null],
    ]);
    expect(settled[1]!.resolution).toBeNull();
  });
});
