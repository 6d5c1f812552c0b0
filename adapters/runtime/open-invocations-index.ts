import type { Database } from 'better-sqlite3';
import { listOpenInvocations, openInvocationsProjection, type OpenInvocationRow } from '../../projections/open-invocations';
import { ProjectionRunner } from '../../projections/runner';
import type { EventStore } from '../event-store';
import { readSchedulerSnapshots, schedulerSnapshotsProjection, type SchedulerSnapshot } from './scheduler-snapshots';

/**
 * An open invocation as recovery reads it: with the fold recovery decides from and the revision it
 * reflects when the view keeps them (recovery then reads no stream), else just its id.
 */
export type OpenInvocationEntry = Pick<OpenInvocationRow, 'invocation_action_instance_id'> &
  Partial<Pick<OpenInvocationRow, 'recovery' | 'revision'>>;

/** Keeps the open-invocations read model current and lists it (projections/open-invocations). */
export interface OpenInvocationsIndex {
  catchUp(): Promise<unknown>;
  listOpen(): readonly OpenInvocationEntry[];
  /** Scheduler states by stream, as of the last catch-up; without them start() folds every scheduler stream. */
  schedulerSnapshots?(): ReadonlyMap<string, SchedulerSnapshot>;
}

/**
 * The open-invocations read model and the scheduler snapshots in the views database, as recovery reads
 * them: caught up from their checkpoints (not from the start of history) by one runner, then listed.
 */
export const openInvocationsIndex = (store: EventStore, views: Database): OpenInvocationsIndex => {
  const runner = new ProjectionRunner({ store, views, projections: [openInvocationsProjection, schedulerSnapshotsProjection] });
  return {
    async catchUp() {
      const result = await runner.catchUp();
      if (result.kind === 'projection_failed') throw new Error(`the open-invocations view failed at ${result.position}: ${result.reason}`);
      if (result.kind === 'storage_failure') throw new Error(`catching up the open-invocations view: ${result.reason}`);
      return result;
    },
    listOpen: () => listOpenInvocations(views),
    schedulerSnapshots: () => readSchedulerSnapshots(views),
  };
};
