export * from '../ports/invocation-port';
export * from './tool-action-request';
export * from './participant-runtime';
export { LocalInvocationPort, type CrossingPolicySwitch, type PortEventListener } from './local-invocation-port';
export {
  RuntimeManager,
  RegistrationRefused,
  type AttachedPort,
  type OperatorResult,
  type RuntimeManagerOptions,
  type AdvanceUntil,
  type RuntimeProgress,
} from './runtime-manager';
export * from './operations';
export { toolCallRefused, type PortCallName, type RefusalListener, type ToolCallRefused } from './port-refusals';
export { StreamAggregate, eventId, type EventCodec, type Handled, type StreamDecider } from './stream-aggregate';
export { invocationAggregate, schedulerAggregate, invocationEventCodec, schedulerEventCodec } from './aggregates';
export { SchedulerCheckpointCheck } from './scheduler-checkpoint-check';
export type { RemoteAccess, RemotePortGrants } from '../ports/remote-ports';
export type { OpenInvocationEntry, OpenInvocationsIndex, SchedulerSnapshot } from '../ports/open-invocations';
export { ParticipantLeases, type LeaseHeldElsewhere, type LeaseRound, type LeaseSettings } from './participant-leases';
export type { ParticipantOwnership } from './runtime-options';
