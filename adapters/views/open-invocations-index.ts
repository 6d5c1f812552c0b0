import type { Database } from 'better-sqlite3';
import type { CurrentOpenInvocations, OpenInvocationsIndex, SchedulerSnapshot } from '../../domain/ports/open-invocations';
import type { ProjectionCheckpoint } from '../../domain/ports/views';
import { listOpenInvocations, openInvocationsProjection, type OpenInvocationRow, type OpenInvocationsViews } from '../../projections/open-invocations';
import { ProjectionRunner } from '../../projections/runner';
import type { EventStore } from '../../domain/ports/event-store';
import { readSchedulerSnapshots, schedulerSnapshotsProjection, type SchedulerSnapshotsViews } from '../../projections/scheduler-snapshots';
import { overlayViews } from './overlay-views';
import { sqliteViews, type SqliteViews } from './sqlite';

const PROJECTIONS = [openInvocationsProjection, schedulerSnapshotsProjection];

/**
 * The open-invocations read model and the scheduler snapshots in the views database, as recovery reads
 * them: caught up from their checkpoints (not from the start of history) by one runner, then listed.
 */
export const openInvocationsIndex = (store: EventStore, database: Database): OpenInvocationsIndex => {
  const views = sqliteViews(database);
  const runner = new ProjectionRunner<OpenInvocationsViews & SchedulerSnapshotsViews>({ store, views, projections: PROJECTIONS });
  return {
    async catchUp() {
      const result = await runner.catchUp();
      if (result.kind === 'projection_failed') throw new Error(`the open-invocations view failed at ${result.position}: ${result.reason}`);
      if (result.kind === 'storage_failure') throw new Error(`catching up the open-invocations view: ${result.reason}`);
      return result;
    },
    listOpen: () => listOpenInvocations(views),
    isBlank: () => PROJECTIONS.some((projection) => runner.checkpointOf(projection.name) === undefined),
    schedulerSnapshots: () => readSchedulerSnapshots(views),
    current: () => currentOpenInvocations(store, views),
  };
};

/**
 * The rows and snapshots as the views hold them, read in one transaction with their checkpoints, and
 * the log after those checkpoints applied to copies in memory by the same projections. What a catch-up
 * of the views would list, without its writes (each a lookup and an update of a row on disk, slow on
 * the views' cold pages at a restart); the views catch up after recovery. Undefined for views a
 * catch-up would first rebuild (a projection never applied, or written by another version of it).
 */
const currentOpenInvocations = async (store: EventStore, views: SqliteViews): Promise<CurrentOpenInvocations | undefined> => {
  let held: { checkpoints: ReadonlyMap<string, ProjectionCheckpoint>; open: readonly OpenInvocationRow[]; snapshots: ReadonlyMap<string, SchedulerSnapshot> } | undefined;
  try {
    // One read transaction: the rows are exactly those the checkpoints reached, whoever writes the views meanwhile.
    held = views.database.transaction(() => {
      const checkpoints = new Map<string, ProjectionCheckpoint>();
      for (const projection of PROJECTIONS) {
        const checkpoint = views.checkpoints.read(projection.name);
        if (checkpoint === undefined || checkpoint.position === null || checkpoint.version !== projection.version) return undefined;
        checkpoints.set(projection.name, checkpoint);
      }
      return { checkpoints, open: listOpenInvocations(views), snapshots: readSchedulerSnapshots(views) };
    })();
  } catch {
    return undefined;
  }
  if (held === undefined) return undefined;
  const overlay = overlayViews(held.checkpoints, held.open, held.snapshots);
  const caughtUp = await new ProjectionRunner<OpenInvocationsViews & SchedulerSnapshotsViews>({ store, views: overlay, projections: PROJECTIONS }).catchUp();
  if (caughtUp.kind !== 'caught_up') return undefined;
  return { open: listOpenInvocations(overlay), schedulerSnapshots: readSchedulerSnapshots(overlay) };
};
