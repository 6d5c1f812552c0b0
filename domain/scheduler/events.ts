import * as t from 'io-ts';
import { SchedulerStateDataCodec } from './checkpoint';
import { StopReasonCodec } from './state';

export const AttemptOutcomeCodec = t.keyof({ succeeded: null, failed: null, consumed: null });
/** `consumed`: the invocation threw or returned an invalid result; it counts as failed. */
export type AttemptOutcome = t.TypeOf<typeof AttemptOutcomeCodec>;

export const AttemptStartedCodec = t.type({
  type: t.literal('AttemptStarted'),
  policy_address: t.string,
  participant_address: t.string,
  attempt: t.number,
  action_instance_id: t.string,
  action_contract_address: t.string,
  tick: t.number,
  observation_point: t.string,
  execution_generation: t.number,
  at: t.string,
});

export const AttemptFinishedCodec = t.type({
  type: t.literal('AttemptFinished'),
  attempt: t.number,
  action_instance_id: t.string,
  outcome: AttemptOutcomeCodec,
  indeterminate_action_ids: t.readonlyArray(t.string),
  at: t.string,
});

export const SchedulerStoppedCodec = t.type({
  type: t.literal('SchedulerStopped'),
  reason: StopReasonCodec,
  /** The attempt whose outcome stopped the scheduler. */
  action_instance_id: t.string,
  /** For `indeterminate_tool_action`: the tool actions an operator must resolve. */
  indeterminate_action_ids: t.readonlyArray(t.string),
  at: t.string,
});

export const IndeterminateActionResolvedCodec = t.type({
  type: t.literal('IndeterminateActionResolved'),
  action_instance_id: t.string,
  at: t.string,
});

export const SchedulerRestartedCodec = t.type({
  type: t.literal('SchedulerRestarted'),
  at: t.string,
});

/** A shared-clock reset: the policy's execution service owns the generation and adds 1. */
export const ExecutionGenerationAdvancedCodec = t.type({
  type: t.literal('ExecutionGenerationAdvanced'),
  execution_generation: t.number,
  at: t.string,
});

/**
 * The scheduler's state after the events before it, recorded every SCHEDULER_CHECKPOINT_ATTEMPTS
 * attempts: it changes nothing, and lets a reader start from it (domain/scheduler/checkpoint.ts).
 */
export const SchedulerCheckpointedCodec = t.type({
  type: t.literal('SchedulerCheckpointed'),
  state: SchedulerStateDataCodec,
  at: t.string,
});

export const SchedulerEventCodec = t.union([
  AttemptStartedCodec,
  AttemptFinishedCodec,
  SchedulerStoppedCodec,
  IndeterminateActionResolvedCodec,
  SchedulerRestartedCodec,
  ExecutionGenerationAdvancedCodec,
  SchedulerCheckpointedCodec,
]);
export type SchedulerEvent = t.TypeOf<typeof SchedulerEventCodec>;
export type AttemptStarted = t.TypeOf<typeof AttemptStartedCodec>;
export type AttemptFinished = t.TypeOf<typeof AttemptFinishedCodec>;
export type SchedulerStopped = t.TypeOf<typeof SchedulerStoppedCodec>;
export type SchedulerCheckpointed = t.TypeOf<typeof SchedulerCheckpointedCodec>;
