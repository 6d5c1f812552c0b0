import { openInvocationsProjection } from './open-invocations';
import { operationsProjection } from './operations';
import { participantHistoryProjection } from './participant-history';
import type { Projection } from './runner';
import { schedulersProjection } from './schedulers';

export * from './runner';
export * from './open-invocations';
export * from './operations';
export * from './participant-history';
export * from './schedulers';

/** Every read model the engine keeps, in the order a page applies them. */
export const ALL_PROJECTIONS: readonly Projection[] = [
  openInvocationsProjection,
  participantHistoryProjection,
  operationsProjection,
  schedulersProjection,
];
