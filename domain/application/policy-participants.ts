import type { SchedulerPolicy } from '../scheduler';
import type { AdmissionContext, OuterAction } from '../invocation';
import type { CompiledPolicy, CompiledScenario } from '../scenario';
import { schedulerStream } from '../streams';
import type { EventStore } from '../ports/event-store';
import { schedulerAggregate, type SchedulerAggregate } from './aggregates';

/** One participant's part in one v1 policy: its scheduler and what its invocations share. */
export interface PolicyParticipant {
  readonly policy: CompiledPolicy;
  readonly schedulerPolicy: SchedulerPolicy;
  readonly scheduler: SchedulerAggregate;
  admissionContext: AdmissionContext | undefined;
  /** One outer action per action contract, shared by the open invocations that perform it. */
  readonly outerActions: Map<string, OuterAction>;
}

export interface PolicyParticipants {
  /** By scheduler stream (see `schedulerKey`). */
  readonly byKey: ReadonlyMap<string, PolicyParticipant>;
  /** Each participant's schedulers, one per policy it takes part in. */
  readonly byParticipant: ReadonlyMap<string, readonly PolicyParticipant[]>;
}

const schedulerPolicyOf = (policy: CompiledPolicy, participantAddress: string): SchedulerPolicy | undefined => {
  if (policy.profile !== 'participant-autonomous-execution/v1') return undefined;
  return {
    policy_address: policy.address,
    participant_address: participantAddress,
    clock_address: policy.clockAddress,
    action_order: policy.actionOrder,
    start_tick: policy.cadence.startTick,
    cadence_ticks: policy.cadence.cadenceTicks,
    max_action_attempts: policy.maxActionAttempts,
    max_in_flight: policy.maxInFlight,
    failure_policy: policy.failurePolicy,
  };
};

export const schedulerKey = (episodeId: string, policyAddress: string, participantAddress: string): string => schedulerStream(episodeId, policyAddress, participantAddress);

/** A scheduler for each participant of each v1 policy of the scenario, in the episode. */
export const policyParticipantsOf = (compiled: CompiledScenario, store: EventStore, episodeId: string): PolicyParticipants => {
  const byKey = new Map<string, PolicyParticipant>();
  const byParticipant = new Map<string, PolicyParticipant[]>();
  for (const policy of compiled.policies) {
    for (const participant of policy.participantAddresses) {
      const schedulerPolicy = schedulerPolicyOf(policy, participant);
      if (schedulerPolicy === undefined) continue;
      const entry: PolicyParticipant = {
        policy,
        schedulerPolicy,
        scheduler: schedulerAggregate(store, episodeId, policy.address, participant),
        admissionContext: undefined,
        outerActions: new Map(),
      };
      byKey.set(schedulerKey(episodeId, policy.address, participant), entry);
      const ofParticipant = byParticipant.get(participant);
      if (ofParticipant === undefined) byParticipant.set(participant, [entry]);
      else ofParticipant.push(entry);
    }
  }
  return { byKey, byParticipant };
};

/** The unresolved indeterminate tool actions of a participant's schedulers. */
export const unresolvedOf = (entries: readonly PolicyParticipant[]): string[] => {
  const unresolved: string[] = [];
  for (const entry of entries) for (const id of entry.scheduler.state.unresolved) unresolved.push(id);
  return unresolved;
};
