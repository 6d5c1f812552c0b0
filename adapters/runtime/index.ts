export * from './port';
export * from './tool-action-request';
export * from './participant-runtime';
export { LocalInvocationPort, type CrossingPolicySwitch, type PortEventListener } from './invocation-port';
export {
  RuntimeManager,
  RegistrationRefused,
  type AttachedPort,
  type OpenInvocationsIndex,
  type OperatorResult,
  type RuntimeManagerOptions,
  type RuntimeProgress,
} from './runtime-manager';
export * from './operations';
export { StreamAggregate, eventId, type EventCodec, type Handled, type StreamDecider } from './stream-aggregate';
export { invocationAggregate, schedulerAggregate, invocationEventCodec, schedulerEventCodec } from './aggregates';
export { RemotePortServer } from './remote/remote-port-server';
export { RemoteInvocationPort, RemotePortRefused } from './remote/remote-port-client';
export { RemoteAccessCodec, type RemoteAccess } from './remote/remote-access';
export { openInvocationsIndex } from './open-invocations-index';
