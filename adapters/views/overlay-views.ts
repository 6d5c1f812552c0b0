import type { SchedulerSnapshot } from '../../domain/ports/open-invocations';
import type { ProjectionCheckpoint, ProjectionCheckpoints, ViewsPort } from '../../domain/ports/views';
import type { OpenInvocationRow, OpenInvocationsReads, OpenInvocationsViews } from '../../projections/open-invocations';
import { InMemoryOpenInvocations } from './open-invocations-in-memory';
import type { SchedulerSnapshotsReads, SchedulerSnapshotsViews, SchedulerSnapshotsWrites } from '../../projections/scheduler-snapshots';

/**
 * The open-invocations rows, the scheduler snapshots and their checkpoints as read from the views, then
 * written in memory only: the projections apply the log's tail to them as they would to the views,
 * and nothing is written back. A transaction that throws leaves them half written: they are then
 * dropped, not read.
 */

class OverlayCheckpoints implements ProjectionCheckpoints {
  constructor(private readonly checkpoints: Map<string, ProjectionCheckpoint>) {}
  read(name: string): ProjectionCheckpoint | undefined {
    return this.checkpoints.get(name);
  }
  write(name: string, checkpoint: ProjectionCheckpoint): void {
    this.checkpoints.set(name, checkpoint);
  }
  remove(name: string): void {
    this.checkpoints.delete(name);
  }
}

class OverlaySchedulerSnapshots implements SchedulerSnapshotsWrites, SchedulerSnapshotsReads {
  private readonly snapshots: Map<string, SchedulerSnapshot>;

  constructor(snapshots: ReadonlyMap<string, SchedulerSnapshot>) {
    this.snapshots = new Map(snapshots);
  }

  setup(): void {}

  reset(): void {
    this.snapshots.clear();
  }

  snapshot(stream: string): SchedulerSnapshot | undefined {
    return this.snapshots.get(stream);
  }

  /** A copy: the projection goes on moving the object it saves within the next page. */
  save(stream: string, snapshot: SchedulerSnapshot): void {
    this.snapshots.set(stream, { state: snapshot.state, revision: snapshot.revision, link: snapshot.link });
  }

  all(): ReadonlyMap<string, SchedulerSnapshot> {
    return this.snapshots;
  }
}

export type OverlayViews = ViewsPort &
  OpenInvocationsViews &
  SchedulerSnapshotsViews & {
    readonly openInvocations: OpenInvocationsReads;
    readonly schedulerSnapshots: SchedulerSnapshotsReads;
  };

/** Views over copies of what the views database held, as of `checkpoints`. */
export const overlayViews = (
  checkpoints: ReadonlyMap<string, ProjectionCheckpoint>,
  openRows: readonly OpenInvocationRow[],
  snapshots: ReadonlyMap<string, SchedulerSnapshot>,
): OverlayViews => ({
  checkpoints: new OverlayCheckpoints(new Map(checkpoints)),
  openInvocations: new InMemoryOpenInvocations(openRows),
  schedulerSnapshots: new OverlaySchedulerSnapshots(snapshots),
  transaction: (work) => work(),
});
