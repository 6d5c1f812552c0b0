import type { Database } from 'better-sqlite3';
import type { OpenInvocationsIndex } from '../../domain/ports/open-invocations';
import { listOpenInvocations, openInvocationsProjection, type OpenInvocationsViews } from '../../projections/open-invocations';
import { ProjectionRunner } from '../../projections/runner';
import type { EventStore } from '../../domain/ports/event-store';
import { readSchedulerSnapshots, schedulerSnapshotsProjection, type SchedulerSnapshotsViews } from '../../projections/scheduler-snapshots';
import { sqliteViews } from './sqlite';

/**
 * The open-invocations read model and the scheduler snapshots in the views database, as recovery reads
 * them: caught up from their checkpoints (not from the start of history) by one runner, then listed.
 */
export const openInvocationsIndex = (store: EventStore, database: Database): OpenInvocationsIndex => {
  const views = sqliteViews(database);
  const projections = [openInvocationsProjection, schedulerSnapshotsProjection];
  const runner = new ProjectionRunner<OpenInvocationsViews & SchedulerSnapshotsViews>({ store, views, projections });
  return {
    async catchUp() {
      const result = await runner.catchUp();
      if (result.kind === 'projection_failed') throw new Error(`the open-invocations view failed at ${result.position}: ${result.reason}`);
      if (result.kind === 'storage_failure') throw new Error(`catching up the open-invocations view: ${result.reason}`);
      return result;
    },
    listOpen: () => listOpenInvocations(views),
    isBlank: () => projections.some((projection) => runner.checkpointOf(projection.name) === undefined),
    schedulerSnapshots: () => readSchedulerSnapshots(views),
  };
};
