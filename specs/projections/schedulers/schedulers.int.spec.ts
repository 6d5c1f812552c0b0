import { listSchedulers, schedulersProjection } from '../../../projections/schedulers';
import { ProjectionRunner } from '../../../projections/runner';
import { errorsOf, validators } from '../support/schemas';
import { openViews, STORES } from '../support/stores';
import { participant, POLICY, SchedulerDriver, tick } from '../support/world';
import { outerActionInstanceId, toolActionInstanceId } from '../../../domain/addresses';

const PROBER = participant('prober');
const SCOUT = participant('scout');

describe.each(STORES)('schedulers on the %s store', (_name, makeStore) => {
  it('shows a scheduler stopped by an indeterminate tool action until resolved and restarted', async () => {
    const store = makeStore();
    const views = openViews();
    const runner = new ProjectionRunner({ store, views, projections: [schedulersProjection] });
    const prober = new SchedulerDriver(store, PROBER);
    const scout = new SchedulerDriver(store, SCOUT);
    const outer = outerActionInstanceId(POLICY, PROBER, 1);
    const lost = toolActionInstanceId(outer, 2);
    await prober.run({ type: 'StartAttempt', policy: prober.policy, tick: 1, at: tick() });
    await scout.run({ type: 'StartAttempt', policy: scout.policy, tick: 1, at: tick() });
    await prober.run({ type: 'FinishAttempt', policy: prober.policy, attempt: 1, outcome: 'succeeded', indeterminate_action_ids: [lost], at: tick() });
    await runner.catchUp();

    const [stopped, running] = listSchedulers(views);
    expect(stopped).toEqual(
      expect.objectContaining({
        policy_address: POLICY,
        participant_address: PROBER,
        status: 'stopped',
        stopped_by: { reason: 'indeterminate_tool_action', action_instance_id: outer, indeterminate_action_ids: [lost], stopped_at: expect.any(String) },
        unresolved_action_ids: [lost],
        attempts_started: 1,
      }),
    );
    expect(running).toEqual(expect.objectContaining({ participant_address: SCOUT, status: 'running', stopped_by: null }));
    for (const status of listSchedulers(views)) expect(errorsOf(validators.schedulerStatus(), status)).toEqual([]);

    await prober.run({ type: 'RecordResolution', action_instance_id: lost, at: tick() });
    await prober.run({ type: 'RestartScheduler', at: tick() });
    await runner.catchUp();
    const [restarted] = listSchedulers(views, { participant: PROBER });
    expect(restarted).toEqual(expect.objectContaining({ status: 'running', stopped_by: null, unresolved_action_ids: [] }));
    expect(errorsOf(validators.schedulerStatus(), restarted)).toEqual([]);
    await store.close();
  });

  it('shows a scheduler stopped by its failure policy after a failed attempt', async () => {
    const store = makeStore();
    const views = openViews();
    const prober = new SchedulerDriver(store, PROBER);
    await prober.run({ type: 'StartAttempt', policy: prober.policy, tick: 1, at: tick() });
    await prober.run({ type: 'FinishAttempt', policy: prober.policy, attempt: 1, outcome: 'consumed', indeterminate_action_ids: [], at: tick() });
    const runner = new ProjectionRunner({ store, views, projections: [schedulersProjection] });
    await runner.catchUp();
    const before = listSchedulers(views);
    expect(before).toEqual([expect.objectContaining({ status: 'stopped', stopped_by: expect.objectContaining({ reason: 'failure_policy' }) })]);
    await runner.rebuild('schedulers');
    expect(listSchedulers(views)).toEqual(before);
    await store.close();
  });
});
