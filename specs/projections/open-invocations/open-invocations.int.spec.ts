import { ChainedEventStore } from '../../../adapters/event-store/chained-event-store';
import type { OpenedEventStore } from '../../../adapters/event-store/store-tail';
import { linkOf } from '../../../domain/integrity/chain';
import { listOpenInvocations, openInvocationsProjection } from '../../../projections/open-invocations';
import { evolveInterrupted, initialInterruptedInvocation } from '../../../domain/invocation';
import { ProjectionRunner } from '../../../projections/runner';
import { openViews, STORES } from '../support/stores';
import { InvocationDriver, participant, runReturningInvocation } from '../support/world';

describe.each(STORES)('open invocations on the %s store', (_name, makeStore) => {
  it('lists an invocation from InvocationOpened until InvocationClosed, oldest first', async () => {
    const store = makeStore();
    const views = openViews();
    const runner = new ProjectionRunner({ store, views, projections: [openInvocationsProjection] });
    const first = new InvocationDriver(store, participant('prober'), 1);
    const second = new InvocationDriver(store, participant('scout'), 1);
    await first.open();
    await second.open();
    await second.activate();
    await runner.catchUp();
    expect(listOpenInvocations(views)).toEqual([
      {
        invocation_action_instance_id: first.id,
        stream: first.stream,
        participant_address: participant('prober'),
        episode_id: 'episode-0001',
        opened_at: expect.stringMatching(/^2026-/),
        recovery: { status: 'open', invocationId: first.id, admitted: 0, unsettled: [], unresolvedIndeterminate: [] },
        revision: 0,
        link: null,
      },
      expect.objectContaining({ invocation_action_instance_id: second.id, stream: second.stream }),
    ]);

    await second.throwFromHarness();
    await runReturningInvocation(store, participant('runner'), 1);
    await runner.catchUp();
    expect(listOpenInvocations(views).map((row) => row.invocation_action_instance_id)).toEqual([first.id]);

    await first.recover();
    await runner.catchUp();
    expect(listOpenInvocations(views)).toEqual([]);
    await store.close();
  });

  it("keeps each open invocation's recovery fold and revision as its stream's, across pages", async () => {
    const store = makeStore();
    const views = openViews();
    const runner = new ProjectionRunner({ store, views, projections: [openInvocationsProjection], pageSize: 2 });
    const driver = new InvocationDriver(store, participant('prober'), 1);
    await driver.open();
    await driver.activate();
    const completed = await driver.admit();
    const unknown = await driver.admit();
    await driver.dispatch(completed);
    await runner.catchUp();
    await driver.dispatch(unknown);
    await driver.complete(completed);
    await driver.reportUnknown(unknown);
    const withheld = await driver.admit();
    const dispatched = await driver.admit();
    await driver.dispatch(dispatched);
    await runner.catchUp();
    const fold = driver.events.reduce(evolveInterrupted, initialInterruptedInvocation());
    expect(fold).toEqual({
      status: 'open',
      invocationId: driver.id,
      admitted: 4,
      unsettled: [
        { actionInstanceId: withheld, phase: 'admitted' },
        { actionInstanceId: dispatched, phase: 'dispatched' },
      ],
      unresolvedIndeterminate: [unknown],
    });
    expect(listOpenInvocations(views)).toEqual([expect.objectContaining({ recovery: fold, revision: driver.events.length - 1 })]);

    await driver.resolve(unknown);
    await runner.catchUp();
    expect(listOpenInvocations(views)[0]).toMatchObject({ recovery: { unresolvedIndeterminate: [] }, revision: driver.events.length - 1 });
    await store.close();
  });

  it('keeps the chain link of the event at each row\'s revision, as the row opens and as its fold moves on, across pages', async () => {
    const store = new ChainedEventStore(makeStore() as OpenedEventStore);
    const views = openViews();
    const runner = new ProjectionRunner({ store, views, projections: [openInvocationsProjection], pageSize: 2 });
    const driver = new InvocationDriver(store, participant('prober'), 1);
    const other = new InvocationDriver(store, participant('scout'), 1);
    const lastLink = async (stream: string): Promise<string> => {
      const read = await store.readStream(stream);
      if (read.kind !== 'read') throw new Error(read.reason);
      return linkOf(read.events[read.events.length - 1]!.metadata)!.digest;
    };
    await driver.open();
    await other.open();
    await runner.catchUp();
    const opened = listOpenInvocations(views);
    expect(opened.map((row) => row.link)).toEqual([await lastLink(driver.stream), await lastLink(other.stream)]);
    await driver.activate();
    await driver.dispatch(await driver.admit());
    await runner.catchUp();
    const moved = listOpenInvocations(views)[0]!;
    expect(moved).toMatchObject({ revision: driver.events.length - 1, link: await lastLink(driver.stream) });
    expect(moved.link).not.toBe(opened[0]!.link);
    await store.close();
  });

  it('is empty before any catch-up', () => {
    expect(listOpenInvocations(openViews())).toEqual([]);
  });
});
