import { openInvocationsProjection, type OpenInvocationsViews } from './open-invocations';
import { operationsProjection, type OperationsViews } from './operations';
import { participantHistoryProjection, type ParticipantHistoryViews } from './participant-history';
import type { Projection } from './runner';
import { schedulersProjection, type SchedulersViews } from './schedulers';

export * from './runner';
export * from './open-invocations';
export * from './operations';
export * from './participant-history';
export * from './schedulers';

/** The views every read model of ALL_PROJECTIONS keeps its rows in. */
export type AllProjectionViews = OpenInvocationsViews & ParticipantHistoryViews & OperationsViews & SchedulersViews;

/** Every read model the engine keeps, in the order a page applies them. */
export const ALL_PROJECTIONS: readonly Projection<AllProjectionViews>[] = [
  openInvocationsProjection,
  participantHistoryProjection,
  operationsProjection,
  schedulersProjection,
];
