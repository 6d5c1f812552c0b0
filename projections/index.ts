import { openInvocationsProjection, type OpenInvocationsViews } from './open-invocations';
import { operationsProjection, type OperationsViews } from './operations';
import { participantHistoryProjection, type ParticipantHistoryViews } from './participant-history';
import type { Projection } from './runner';
import { schedulerSnapshotsProjection, type SchedulerSnapshotsViews } from './scheduler-snapshots';
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

/**
 * What a running engine keeps following the log: every read model, and the scheduler snapshots its
 * recovery restores from, so that a crash leaves none of them further behind than the follower's lag.
 */
export const FOLLOWED_PROJECTIONS: readonly Projection<AllProjectionViews & SchedulerSnapshotsViews>[] = [...ALL_PROJECTIONS, schedulerSnapshotsProjection];
