import * as E from 'fp-ts/Either';
import fc from 'fast-check';
import { SCHEDULER_CHECKPOINT_ATTEMPTS, schedulerDecider, schedulerStateData, type SchedulerCommand, type SchedulerEvent, type SchedulerPolicy, type SchedulerState } from '../../../domain/scheduler';

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

/**
 * Long runs: every step is read against the state so far (start the next due tick, finish one of the
 * attempts in flight, resolve, restart, reset the clock), so runs reach past SCHEDULER_CHECKPOINT_ATTEMPTS.
 */
type Step =
  | { readonly kind: 'start' }
  | { readonly kind: 'finish'; readonly pick: number; readonly outcome: 'succeeded' | 'failed' | 'consumed'; readonly indeterminate: boolean }
  | { readonly kind: 'resolve'; readonly pick: number }
  | { readonly kind: 'restart' }
  | { readonly kind: 'reset' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Step>({ kind: 'start' }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('finish' as const),
      pick: fc.nat(),
      outcome: fc.constantFrom('succeeded' as const, 'succeeded' as const, 'failed' as const, 'consumed' as const),
      indeterminate: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('resolve' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.constant<Step>({ kind: 'restart' }) },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: 'reset' }) },
);

const longPolicyArb: fc.Arbitrary<SchedulerPolicy> = fc.record({
  policy_address: fc.constant('participant.autonomous-execution.s'),
  participant_address: fc.constant('participant.behavior.a'),
  clock_address: fc.constant('time.clock.k'),
  action_order: fc.constant(['participant.action-contract.x']),
  start_tick: fc.constant(0),
  cadence_ticks: fc.constant(1),
  max_action_attempts: fc.integer({ min: 60, max: 400 }),
  max_in_flight: fc.integer({ min: 1, max: 4 }),
  failure_policy: fc.constantFrom('stop' as const, 'continue' as const),
});

const commandOf = (step: Step, policy: SchedulerPolicy, state: SchedulerState): SchedulerCommand => {
  const inFlight = [...state.inFlight.keys()];
  const unresolved = [...state.unresolved];
  switch (step.kind) {
    case 'start':
      return { type: 'StartAttempt', policy, tick: (state.lastTick ?? -1) + 1, at };
    case 'finish': {
      const attempt = inFlight.length === 0 ? state.attemptsStarted + 1 : inFlight[step.pick % inFlight.length]!;
      return { type: 'FinishAttempt', policy, attempt, outcome: step.outcome, indeterminate_action_ids: step.indeterminate ? [`attempt-${attempt}:tool=1`] : [], at };
    }
    case 'resolve':
      return { type: 'RecordResolution', action_instance_id: unresolved.length === 0 ? 'none:tool=1' : unresolved[step.pick % unresolved.length]!, at };
    case 'restart':
      return { type: 'RestartScheduler', at };
    case 'reset':
      return { type: 'ResetSharedClock', at };
  }
};

const runSteps = (policy: SchedulerPolicy, steps: readonly Step[]): { readonly events: readonly SchedulerEvent[]; readonly final: SchedulerState } => {
  let state = schedulerDecider.initialState();
  const events: SchedulerEvent[] = [];
  for (const step of steps) {
    const decision = schedulerDecider.decide(commandOf(step, policy, state), state);
    if (E.isLeft(decision)) continue;
    for (const event of decision.right) {
      state = schedulerDecider.evolve(state, event);
      events.push(event);
    }
  }
  return { events, final: state };
};

const longScenario = longPolicyArb.chain((policy) => fc.tuple(fc.constant(policy), fc.array(stepArb, { minLength: 200, maxLength: 900 })));

describe('scheduler checkpoints', () => {
  it('record, every SCHEDULER_CHECKPOINT_ATTEMPTS attempts, exactly the state the events before them fold to', () => {
    let checkpoints = 0;
    fc.assert(
      fc.property(longScenario, ([policy, steps]) => {
        const { events } = runSteps(policy, steps);
        let state = schedulerDecider.initialState();
        for (let index = 0; index < events.length; index += 1) {
          const event = events[index]!;
          if (event.type === 'SchedulerCheckpointed') {
            checkpoints += 1;
            expect(event.state).toEqual(schedulerStateData(state));
            // Folded from nothing, a checkpoint gives that state back.
            expect(schedulerDecider.evolve(schedulerDecider.initialState(), event)).toEqual(state);
            const finished = events[index - 1]!.type === 'AttemptFinished' ? events[index - 1] : events[index - 2];
            expect(finished?.type === 'AttemptFinished' && finished.attempt % SCHEDULER_CHECKPOINT_ATTEMPTS).toBe(0);
          }
          state = schedulerDecider.evolve(state, event);
        }
        const finishedOnTheMark = events.filter((event) => event.type === 'AttemptFinished' && event.attempt % SCHEDULER_CHECKPOINT_ATTEMPTS === 0).length;
        expect(events.filter((event) => event.type === 'SchedulerCheckpointed')).toHaveLength(finishedOnTheMark);
      }),
      { numRuns: 60 },
    );
    expect(checkpoints).toBeGreaterThan(0);
  });

  it('folded from the latest checkpoint on, give the state folded from the start', () => {
    fc.assert(
      fc.property(longScenario, ([policy, steps]) => {
        const { events, final } = runSteps(policy, steps);
        let latest = -1;
        events.forEach((event, index) => {
          if (event.type === 'SchedulerCheckpointed') latest = index;
        });
        const tail = latest < 0 ? events : events.slice(latest);
        expect(tail.reduce(schedulerDecider.evolve, schedulerDecider.initialState())).toEqual(final);
      }),
      { numRuns: 60 },
    );
  });
});
