import type { SchedulerSnapshot } from '../../domain/ports/open-invocations';
import type { ProjectionCheckpoint, ProjectionCheckpoints, ViewsPort } from '../../domain/ports/views';
import type { OpenInvocationFold, OpenInvocationRow, OpenInvocationsReads, OpenInvocationsViews, OpenInvocationsWrites } from '../../projections/open-invocations';
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

type Kept = { row: OpenInvocationRow; readonly position: number };

class OverlayOpenInvocations implements OpenInvocationsWrites, OpenInvocationsReads {
  private readonly rows = new Map<string, Kept>();

  /** `rows` in the order they opened: each is placed before every row the tail opens (whose positions are past the checkpoint). */
  constructor(rows: readonly OpenInvocationRow[]) {
    for (let index = 0; index < rows.length; index++) this.rows.set(rows[index]!.stream, { row: rows[index]!, position: index - rows.length });
  }

  setup(): void {}

  reset(): void {
    this.rows.clear();
  }

  open(row: OpenInvocationRow, position: number): void {
    this.rows.set(row.stream, { row, position });
  }

  /** A new object each time: the projection moves the fold it is handed on in place. */
  fold(stream: string): OpenInvocationFold | undefined {
    const kept = this.rows.get(stream);
    return kept === undefined ? undefined : { recovery: kept.row.recovery, revision: kept.row.revision };
  }

  updateFold(stream: string, fold: OpenInvocationFold): void {
    const kept = this.rows.get(stream);
    if (kept === undefined) return;
    const row = kept.row;
    kept.row = {
      invocation_action_instance_id: row.invocation_action_instance_id,
      stream: row.stream,
      participant_address: row.participant_address,
      episode_id: row.episode_id,
      opened_at: row.opened_at,
      recovery: fold.recovery,
      revision: fold.revision,
    };
  }

  close(stream: string): void {
    this.rows.delete(stream);
  }

  listOpen(): readonly OpenInvocationRow[] {
    return [...this.rows.values()].sort((a, b) => a.position - b.position).map((kept) => kept.row);
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
    this.snapshots.set(stream, { state: snapshot.state, revision: snapshot.revision });
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
  openInvocations: new OverlayOpenInvocations(openRows),
  schedulerSnapshots: new OverlaySchedulerSnapshots(snapshots),
  transaction: (work) => work(),
});
