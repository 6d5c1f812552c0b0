import type { SchedulerSnapshot } from '../../domain/ports/open-invocations';
import type { ViewRows } from '../../domain/ports/views';

/** What the scheduler-snapshots projection writes, and the lookup its fold needs. */
export interface SchedulerSnapshotsWrites extends ViewRows {
  /** The scheduler's snapshot as last saved; undefined for a stream not seen yet. */
  snapshot(stream: string): SchedulerSnapshot | undefined;
  save(stream: string, snapshot: SchedulerSnapshot): void;
}

/** What recovery reads. */
export interface SchedulerSnapshotsReads {
  /** Every scheduler's snapshot, by stream; empty before the projection's first page. */
  all(): ReadonlyMap<string, SchedulerSnapshot>;
}
