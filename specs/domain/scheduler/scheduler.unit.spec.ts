import * as E from 'fp-ts/Either';
import {
  cadenceTicksBetween,
  nextCadenceTick,
  schedulerDecider,
  type SchedulerCommand,
  type SchedulerEvent,
  type SchedulerPolicy,
  type SchedulerState,
} from '../../../domain/scheduler';
import { canonicalJson } from '../../../domain/integrity/canonical-json';
import type { JsonValue } from '../../../domain/ports/event-store';

const policy: SchedulerPolicy = {
  policy_address: 'participant.autonomous-execution.participant-behavior',
  participant_address: 'participant.behavior.participant-agent',
  clock_address: 'time.clock.shared',
  action_order: ['participant.action-contract.a', 'participant.action-contract.b'],
  start_tick: 2,
  cadence_ticks: 3,
  max_action_attempts: 3,
  max_in_flight: 1,
  failure_policy: 'stop',
};
const at = '2026-01-01T00:00:00.000Z';

const fold = (events: readonly SchedulerEvent[]): SchedulerState =>
  events.reduce(schedulerDecider.evolve, schedulerDecider.initialState());

const given = (...commands: SchedulerCommand[]): SchedulerEvent[] => {
  const history: SchedulerEvent[] = [];
  for (const command of commands) {
    const decision = schedulerDecider.decide(command, fold(history));
    if (E.isLeft(decision)) throw new Error(`setup command refused: ${decision.left.code}`);
    history.push(...decision.right);
  }
  return history;
};

const when = (history: readonly SchedulerEvent[], command: SchedulerCommand) => schedulerDecider.decide(command, fold(history));

const start = (tick: number, p: SchedulerPolicy = policy): SchedulerCommand => ({ type: 'StartAttempt', policy: p, tick, at });
const finish = (attempt: number, outcome: 'succeeded' | 'failed' | 'consumed', indeterminate: string[] = [], p = policy): SchedulerCommand => ({
  type: 'FinishAttempt',
  policy: p,
  attempt,
  outcome,
  indeterminate_action_ids: indeterminate,
  at,
});

const refusalCode = (decision: ReturnType<typeof when>): string | null => (E.isLeft(decision) ? decision.left.code : null);

describe('v1 cadence', () => {
  it('lists cadence ticks after a tick, through a tick', () => {
    expect(cadenceTicksBetween(policy, -1, 10)).toEqual([2, 5, 8]);
    expect(cadenceTicksBetween(policy, 2, 11)).toEqual([5, 8, 11]);
    expect(cadenceTicksBetween(policy, 11, 11)).toEqual([]);
  });

  it('names the first cadence tick after a tick, the first of cadenceTicksBetween', () => {
    for (const after of [-5, -1, 0, 1, 2, 3, 4, 5, 11, 100]) expect(nextCadenceTick(policy, after)).toBe(cadenceTicksBetween(policy, after, after + 10)[0]);
  });
});

describe('scheduler decider', () => {
  it('starts attempt 1 at the first cadence tick, ordered_cycle over action_order', () => {
    const decision = when([], start(2));
    expect(decision).toEqual(
      E.right([
        expect.objectContaining({
          type: 'AttemptStarted',
          attempt: 1,
          action_instance_id:
            'participant.autonomous-execution.participant-behavior:participant.behavior.participant-agent:1',
          action_contract_address: 'participant.action-contract.a',
          observation_point: 'time.clock.shared@segment=0,tick=2',
          execution_generation: 0,
        }),
      ]),
    );
    const second = given(start(2), finish(1, 'succeeded'), start(5));
    expect(second[2]).toMatchObject({ attempt: 2, action_contract_address: 'participant.action-contract.b' });
  });

  it('refuses a tick that is not a cadence tick', () => {
    expect(refusalCode(when([], start(3)))).toBe('tick_not_due');
  });

  it('refuses a tick at or before the last scheduled one', () => {
    expect(refusalCode(when(given(start(5), finish(1, 'succeeded')), start(2)))).toBe('tick_already_scheduled');
  });

  it('bounds attempts in flight by max_in_flight', () => {
    expect(refusalCode(when(given(start(2)), start(5)))).toBe('in_flight_exhausted');
  });

  it('stops after max_action_attempts attempts', () => {
    const history = given(start(2), finish(1, 'succeeded'), start(5), finish(2, 'succeeded'), start(8), finish(3, 'succeeded'));
    expect(refusalCode(when(history, start(11)))).toBe('attempts_exhausted');
  });

  it('stops on a failed attempt under failure_policy stop, and keeps going under continue', () => {
    const stopped = given(start(2), finish(1, 'failed'));
    expect(stopped[stopped.length - 1]).toMatchObject({ type: 'SchedulerStopped', reason: 'failure_policy' });
    expect(refusalCode(when(stopped, start(5)))).toBe('scheduler_stopped');

    const lenient: SchedulerPolicy = { ...policy, failure_policy: 'continue' };
    const continued = given(start(2, lenient), finish(1, 'consumed', [], lenient));
    expect(continued.map((event) => event.type)).toEqual(['AttemptStarted', 'AttemptFinished']);
    expect(E.isRight(when(continued, start(5, lenient)))).toBe(true);
  });

  it('stops on an indeterminate tool action even under failure_policy continue', () => {
    const lenient: SchedulerPolicy = { ...policy, failure_policy: 'continue' };
    const history = given(start(2, lenient), finish(1, 'succeeded', ['x:tool=1'], lenient));
    expect(history[2]).toMatchObject({
      type: 'SchedulerStopped',
      reason: 'indeterminate_tool_action',
      indeterminate_action_ids: ['x:tool=1'],
    });
    expect(refusalCode(when(history, start(5, lenient)))).toBe('scheduler_stopped');
  });

  it('restarts only after every indeterminate action is resolved', () => {
    const restart: SchedulerCommand = { type: 'RestartScheduler', at };
    const resolve = (id: string): SchedulerCommand => ({ type: 'RecordResolution', action_instance_id: id, at });
    const stopped = given(start(2), finish(1, 'succeeded', ['x:tool=1', 'x:tool=2']));
    expect(refusalCode(when(stopped, restart))).toBe('indeterminate_unresolved');

    const partly = given(start(2), finish(1, 'succeeded', ['x:tool=1', 'x:tool=2']), resolve('x:tool=1'));
    expect(refusalCode(when(partly, restart))).toBe('indeterminate_unresolved');

    const resolved = given(start(2), finish(1, 'succeeded', ['x:tool=1', 'x:tool=2']), resolve('x:tool=1'), resolve('x:tool=2'));
    expect(when(resolved, restart)).toEqual(E.right([{ type: 'SchedulerRestarted', at }]));
    expect(E.isRight(when(given(...[start(2), finish(1, 'succeeded', ['x:tool=1']), resolve('x:tool=1'), restart]), start(5)))).toBe(true);
  });

  it('refuses to resolve an action that is not indeterminate, and to restart a running scheduler', () => {
    expect(refusalCode(when([], { type: 'RecordResolution', action_instance_id: 'nope', at }))).toBe('action_not_indeterminate');
    expect(refusalCode(when([], { type: 'RestartScheduler', at }))).toBe('scheduler_running');
  });

  it('refuses to finish an attempt that is not in flight', () => {
    expect(refusalCode(when([], finish(1, 'succeeded')))).toBe('attempt_unknown');
  });

  it('a shared-clock reset adds 1 to the execution generation and opens a new segment', () => {
    const history = given(start(2), finish(1, 'succeeded'), { type: 'ResetSharedClock', at }, start(2));
    expect(history[history.length - 1]).toMatchObject({
      execution_generation: 1,
      observation_point: 'time.clock.shared@segment=1,tick=2',
      attempt: 2,
    });
  });
});

describe('the scheduler events as decided', () => {
  it('have their members in canonical order, so their canonical JSON is JSON.stringify\'s', () => {
    const stopPolicy: SchedulerPolicy = { ...policy, max_in_flight: 2 };
    const events = given(start(2, stopPolicy), start(5, stopPolicy), finish(1, 'succeeded', ['tool-1'], stopPolicy));
    const failed = given(start(2), finish(1, 'failed'));
    const decided = [...events, ...failed];
    expect(new Set(decided.map((event) => event.type))).toEqual(new Set(['AttemptStarted', 'AttemptFinished', 'SchedulerStopped']));
    for (const event of decided) expect(JSON.stringify(event)).toBe(canonicalJson(event as unknown as JsonValue));
  });
});
