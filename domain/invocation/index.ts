export * from './action-result';
export * from './admission-context';
export type { AdmissionIndex, IndexedBinding, IndexedOffer } from './admission-index';
export * from './commands';
export { decide, decideAfterDispatchEnded, type PortCommand } from './decide';
export * from './decision';
export { invocationDecider, type InvocationDecider } from './decider';
export { describeValidationError, describeValidationErrors } from './decode-errors';
export * from './events';
export { evolve, foldInvocationEvents, initialState } from './evolve';
export * from './history';
export * from './port-values';
export * from './queries';
export * from './refusal-codes';
export * from './state';
export * from './tool-action-request';
export {
  decideRecovery,
  evolveInterrupted,
  initialInterruptedInvocation,
  interruptedEventOf,
  interruptedInvocationDecider,
  type InterruptedInvocation,
  type InterruptedInvocationEvent,
  type UnsettledToolAction,
} from './interrupted';
