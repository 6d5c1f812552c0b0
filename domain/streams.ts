/** Stream names of the engine's aggregates, the one place that spells them. */
export const INVOCATION_STREAM_PREFIX = 'invocation-';
export const SCHEDULER_STREAM_PREFIX = 'scheduler-';

export const invocationStream = (invocationActionInstanceId: string): string =>
  `${INVOCATION_STREAM_PREFIX}${invocationActionInstanceId}`;

export const schedulerStream = (policyAddress: string, participantAddress: string): string =>
  `${SCHEDULER_STREAM_PREFIX}${policyAddress}|${participantAddress}`;
