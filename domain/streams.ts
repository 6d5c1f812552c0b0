/** Stream names of the engine's aggregates, the one place that spells them. */
export const INVOCATION_STREAM_PREFIX = 'invocation-';
export const SCHEDULER_STREAM_PREFIX = 'scheduler-';

export const invocationStream = (invocationActionInstanceId: string): string =>
  `${INVOCATION_STREAM_PREFIX}${invocationActionInstanceId}`;

export const schedulerStream = (policyAddress: string, participantAddress: string): string =>
  `${SCHEDULER_STREAM_PREFIX}${policyAddress}|${participantAddress}`;

export const LEASE_STREAM_PREFIX = 'lease-';

/** A participant's scheduler lease (several engines on one store): which engine runs it, until when. */
export const leaseStream = (participantAddress: string): string => `${LEASE_STREAM_PREFIX}${participantAddress}`;
