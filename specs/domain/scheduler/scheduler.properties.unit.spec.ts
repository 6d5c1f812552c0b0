import * as E from 'fp-ts/Either';
import fc from 'fast-check';
import { schedulerDecider, type SchedulerCommand, type SchedulerEvent, type SchedulerPolicy, type SchedulerState } from '../../../domain/scheduler';

const at = '2026-01-01T00:00:00.000Z';

const policyArb: fc.Arbitrary<SchedulerPolicy> = fc.record({
  policy_address: fc.constant('participant.autonomous-execution.s'),
  participant_address: fc.constant('participant.behavior.a'),
  clock_address: fc.constant('time.clock.k'),
  action_order: fc.constant(['participant.action-contract.x']),
  start_tick: fc.integer({ min: 0, max: 3 }),
  cadence_ticks: fc.integer({ min: 1, max: 3 }),
  max_action_attempts: fc.integer({ min: 1, max: 6 }),
  max_in_flight: fc.integer({ min: 1, max: 3 }),
  failure_policy: fc.constantFrom('stop' as const, 'continue' as const),
});

const commandArb = (policy: SchedulerPolicy): fc.Arbitrary<SchedulerCommand> =>
  fc.oneof(
    fc.integer({ min: 0, max: 20 }).map((tick): SchedulerCommand => ({ type: 'StartAttempt', policy, tick, at })),
    fc
      .record({
        attempt: fc.integer({ min: 1, max: 6 }),
        outcome: fc.constantFrom('succeeded' as const, 'failed' as const, 'consumed' as const),
        indeterminate: fc.boolean(),
      })
      .map(({ attempt, outcome, indeterminate }): SchedulerCommand => ({
        type: 'FinishAttempt',
        policy,
        attempt,
        outcome,
        indeterminate_action_ids: indeterminate ? [`attempt-${attempt}:tool=1`] : [],
        at,
      })),
    fc.integer({ min: 1, max: 6 }).map((n): SchedulerCommand => ({ type: 'RecordResolution', action_instance_id: `attempt-${n}:tool=1`, at })),
    fc.constant<SchedulerCommand>({ type: 'RestartScheduler', at }),
  );

const run = (commands: readonly SchedulerCommand[]) => {
  let state: SchedulerState = schedulerDecider.initialState();
  const events: SchedulerEvent[] = [];
  const states: SchedulerState[] = [state];
  for (const command of commands) {
    const decision = schedulerDecider.decide(command, state);
    if (E.isRight(decision)) {
      for (const event of decision.right) {
        state = schedulerDecider.evolve(state, event);
        events.push(event);
      }
    }
    states.push(state);
  }
  return { events, states };
};

const scenario = policyArb.chain((policy) => fc.tuple(fc.constant(policy), fc.array(commandArb(policy), { maxLength: 40 })));

describe('scheduler invariants', () => {
  it('never starts more than max_action_attempts attempts, nor more than max_in_flight at once', () => {
    fc.assert(
      fc.property(scenario, ([policy, commands]) => {
        const { events, states } = run(commands);
        expect(events.filter((event) => event.type === 'AttemptStarted').length).toBeLessThanOrEqual(policy.max_action_attempts);
        for (const state of states) expect(state.inFlight.size).toBeLessThanOrEqual(policy.max_in_flight);
      }),
    );
  });

  it('never runs while an indeterminate action is unresolved', () => {
    fc.assert(
      fc.property(scenario, ([, commands]) => {
        const { states } = run(commands);
        for (const state of states) if (state.unresolved.size > 0) expect(state.status).toBe('stopped');
      }),
    );
  });

  it('starts no attempt while stopped', () => {
    fc.assert(
      fc.property(scenario, ([, commands]) => {
        let state = schedulerDecider.initialState();
        for (const command of commands) {
          const decision = schedulerDecider.decide(command, state);
          if (command.type === 'StartAttempt' && state.status === 'stopped') expect(E.isLeft(decision)).toBe(true);
          if (E.isRight(decision)) state = decision.right.reduce(schedulerDecider.evolve, state);
        }
      }),
    );
  });

  it('folding the same events always yields the same state', () => {
    fc.assert(
      fc.property(scenario, ([, commands]) => {
        const { events, states } = run(commands);
        expect(events.reduce(schedulerDecider.evolve, schedulerDecider.initialState())).toEqual(states[states.length - 1]);
      }),
    );
  });
});
