import * as t from 'io-ts';
import { StopReasonCodec, type SchedulerState } from './state';

/**
 * A scheduler's whole state as JSON: what a `SchedulerCheckpointed` event records and what the views
 * keep as a scheduler's snapshot. Members in canonical (sorted) order, the attempts in flight as
 * [attempt, outer action instance id] pairs.
 */
export const SchedulerStateDataCodec = t.type({
  attempts_started: t.number,
  execution_generation: t.number,
  in_flight: t.readonlyArray(t.tuple([t.number, t.string])),
  last_tick: t.union([t.number, t.null]),
  status: t.keyof({ running: null, stopped: null }),
  stopped_by: t.union([
    t.type({ action_instance_id: t.string, reason: StopReasonCodec }),
    t.null,
  ]),
  unresolved: t.readonlyArray(t.string),
});
export type SchedulerStateData = t.TypeOf<typeof SchedulerStateDataCodec>;

export const schedulerStateData = (state: SchedulerState): SchedulerStateData => ({
  attempts_started: state.attemptsStarted,
  execution_generation: state.executionGeneration,
  in_flight: [...state.inFlight],
  last_tick: state.lastTick,
  status: state.status,
  stopped_by: state.stoppedBy === null ? null : { action_instance_id: state.stoppedBy.action_instance_id, reason: state.stoppedBy.reason },
  unresolved: [...state.unresolved],
});

export const schedulerStateOf = (data: SchedulerStateData): SchedulerState => ({
  status: data.status,
  attemptsStarted: data.attempts_started,
  inFlight: new Map(data.in_flight),
  unresolved: new Set(data.unresolved),
  stoppedBy: data.stopped_by === null ? null : { reason: data.stopped_by.reason, action_instance_id: data.stopped_by.action_instance_id },
  executionGeneration: data.execution_generation,
  lastTick: data.last_tick,
});

/**
 * Every this many attempts, the attempt's finishing append also records the scheduler's state
 * (`SchedulerCheckpointed`), so a reader without the views' snapshot reads the stream back from its
 * end to the last checkpoint instead of folding it from its start: two events an attempt, about 130
 * events however long the participant's history, for one more event every 64 attempts
 * (docs/decisions.md).
 */
export const SCHEDULER_CHECKPOINT_ATTEMPTS = 64;

export const SCHEDULER_CHECKPOINTED = 'SchedulerCheckpointed';
