import * as E from 'fp-ts/Either';
import { observationPoint, outerActionInstanceId } from '../addresses';
import type { FinishAttempt, RecordResolution, RestartScheduler, SchedulerCommand, StartAttempt } from './commands';
import type { SchedulerEvent } from './events';
import { SCHEDULER_CHECKPOINT_ATTEMPTS, schedulerStateData, schedulerStateOf } from './checkpoint';
import { initialSchedulerState, type SchedulerState } from './state';
import { actionForAttempt, isCadenceTick } from './policy';
import type { SchedulerRefusal, SchedulerRefusalCode } from './refusals';

/**
 * Events are built with their members in canonical (sorted) order: canonicalJson then writes each with
 * JSON.stringify, for its id's digest, instead of sorting and concatenating (every attempt appends
 * two, and recovery one for each interrupted invocation).
 */
type Decision = E.Either<SchedulerRefusal, readonly SchedulerEvent[]>;

const refuse = (code: SchedulerRefusalCode, message: string): Decision => E.left({ code, message });

const startAttempt = (command: StartAttempt, state: SchedulerState): Decision => {
  const { policy, tick } = command;
  if (state.status === 'stopped') {
    return refuse('scheduler_stopped', `the scheduler of ${policy.participant_address} is stopped; resolve its indeterminate actions and restart it`);
  }
  if (state.attemptsStarted >= policy.max_action_attempts) {
    return refuse('attempts_exhausted', `all ${policy.max_action_attempts} attempts of ${policy.policy_address} have started`);
  }
  if (!isCadenceTick(policy, tick)) return refuse('tick_not_due', `no action of ${policy.policy_address} is due at tick ${tick}`);
  if (state.lastTick !== null && tick <= state.lastTick) {
    return refuse('tick_already_scheduled', `tick ${tick} is not after the last scheduled tick ${state.lastTick}`);
  }
  if (state.inFlight.size >= policy.max_in_flight) {
    return refuse('in_flight_exhausted', `${policy.max_in_flight} attempts of ${policy.policy_address} are already in flight`);
  }
  const attempt = state.attemptsStarted + 1;
  return E.right([
    {
      action_contract_address: actionForAttempt(policy, attempt),
      action_instance_id: outerActionInstanceId(policy.policy_address, policy.participant_address, attempt),
      at: command.at,
      attempt,
      execution_generation: state.executionGeneration,
      observation_point: observationPoint(policy.clock_address, state.executionGeneration, tick),
      participant_address: policy.participant_address,
      policy_address: policy.policy_address,
      tick,
      type: 'AttemptStarted',
    },
  ]);
};

const finishAttempt = (command: FinishAttempt, state: SchedulerState): Decision => {
  const actionInstanceId = state.inFlight.get(command.attempt);
  if (actionInstanceId === undefined) return refuse('attempt_unknown', `attempt ${command.attempt} is not in flight`);
  const events: SchedulerEvent[] = [
    {
      action_instance_id: actionInstanceId,
      at: command.at,
      attempt: command.attempt,
      indeterminate_action_ids: command.indeterminate_action_ids,
      outcome: command.outcome,
      type: 'AttemptFinished',
    },
  ];
  if (state.status === 'running') {
    if (command.indeterminate_action_ids.length > 0) {
      events.push({
        action_instance_id: actionInstanceId,
        at: command.at,
        indeterminate_action_ids: command.indeterminate_action_ids,
        reason: 'indeterminate_tool_action',
        type: 'SchedulerStopped',
      });
    } else if (command.outcome !== 'succeeded' && command.policy.failure_policy === 'stop') {
      events.push({
        action_instance_id: actionInstanceId,
        at: command.at,
        indeterminate_action_ids: [],
        reason: 'failure_policy',
        type: 'SchedulerStopped',
      });
    }
  }
  if (command.attempt % SCHEDULER_CHECKPOINT_ATTEMPTS === 0) {
    let after = state;
    for (const event of events) after = evolveScheduler(after, event);
    events.push({ at: command.at, state: schedulerStateData(after), type: 'SchedulerCheckpointed' });
  }
  return E.right(events);
};

const recordResolution = (command: RecordResolution, state: SchedulerState): Decision =>
  state.unresolved.has(command.action_instance_id)
    ? E.right([{ type: 'IndeterminateActionResolved', action_instance_id: command.action_instance_id, at: command.at }])
    : refuse('action_not_indeterminate', `${command.action_instance_id} is not an unresolved indeterminate action of this scheduler`);

const restart = (command: RestartScheduler, state: SchedulerState): Decision => {
  if (state.status === 'running') return refuse('scheduler_running', 'the scheduler is running; nothing to restart');
  if (state.unresolved.size > 0) {
    return refuse(
      'indeterminate_unresolved',
      `resolve ${[...state.unresolved].join(', ')} before restarting (raes-tools resolve <action id> --effect happened|absent --evidence <ref>)`,
    );
  }
  return E.right([{ type: 'SchedulerRestarted', at: command.at }]);
};

export const decideScheduler = (command: SchedulerCommand, state: SchedulerState): Decision => {
  switch (command.type) {
    case 'StartAttempt':
      return startAttempt(command, state);
    case 'FinishAttempt':
      return finishAttempt(command, state);
    case 'RecordResolution':
      return recordResolution(command, state);
    case 'RestartScheduler':
      return restart(command, state);
    case 'ResetSharedClock':
      return E.right([
        { type: 'ExecutionGenerationAdvanced', execution_generation: state.executionGeneration + 1, at: command.at },
      ]);
  }
};

const withInFlight = (state: SchedulerState, inFlight: ReadonlyMap<number, string>, unresolved: ReadonlySet<string>): SchedulerState => ({
  status: state.status,
  attemptsStarted: state.attemptsStarted,
  inFlight,
  unresolved,
  stoppedBy: state.stoppedBy,
  executionGeneration: state.executionGeneration,
  lastTick: state.lastTick,
});

export const evolveScheduler = (state: SchedulerState, event: SchedulerEvent): SchedulerState => {
  switch (event.type) {
    case 'AttemptStarted': {
      const inFlight = new Map(state.inFlight).set(event.attempt, event.action_instance_id);
      return {
        status: state.status,
        attemptsStarted: event.attempt,
        inFlight,
        unresolved: state.unresolved,
        stoppedBy: state.stoppedBy,
        executionGeneration: state.executionGeneration,
        lastTick: event.tick,
      };
    }
    case 'AttemptFinished': {
      const inFlight = new Map(state.inFlight);
      inFlight.delete(event.attempt);
      const unresolved = new Set(state.unresolved);
      for (const id of event.indeterminate_action_ids) unresolved.add(id);
      return withInFlight(state, inFlight, unresolved);
    }
    case 'SchedulerStopped':
      return {
        status: 'stopped',
        attemptsStarted: state.attemptsStarted,
        inFlight: state.inFlight,
        unresolved: state.unresolved,
        stoppedBy: { reason: event.reason, action_instance_id: event.action_instance_id },
        executionGeneration: state.executionGeneration,
        lastTick: state.lastTick,
      };
    case 'IndeterminateActionResolved': {
      const unresolved = new Set(state.unresolved);
      unresolved.delete(event.action_instance_id);
      return withInFlight(state, state.inFlight, unresolved);
    }
    case 'SchedulerRestarted':
      return {
        status: 'running',
        attemptsStarted: state.attemptsStarted,
        inFlight: state.inFlight,
        unresolved: state.unresolved,
        stoppedBy: null,
        executionGeneration: state.executionGeneration,
        lastTick: state.lastTick,
      };
    case 'SchedulerCheckpointed':
      return schedulerStateOf(event.state);
    case 'ExecutionGenerationAdvanced':
      return {
        status: state.status,
        attemptsStarted: state.attemptsStarted,
        inFlight: state.inFlight,
        unresolved: state.unresolved,
        stoppedBy: state.stoppedBy,
        executionGeneration: event.execution_generation,
        lastTick: null,
      };
  }
};

export const schedulerDecider = {
  decide: decideScheduler,
  evolve: evolveScheduler,
  initialState: initialSchedulerState,
};
