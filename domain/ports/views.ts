/**
 * The views port: where projections keep their read models, whatever the event store is. The runner
 * needs two things from it, one transaction per page and the projections' checkpoints; each projection
 * declares the typed writes and reads of its own rows (projections/<name>/view.ts) and the views
 * implement them (adapters/views/sqlite for the SQLite views database).
 */

/** What the views hold for one projection: the code version that wrote its rows and the last position applied. */
export interface ProjectionCheckpoint {
  readonly version: number;
  /** null until the projection's first page commits. */
  readonly position: bigint | null;
}

export interface ProjectionCheckpoints {
  /** undefined when the projection was never set up in these views. */
  read(name: string): ProjectionCheckpoint | undefined;
  write(name: string, checkpoint: ProjectionCheckpoint): void;
  remove(name: string): void;
}

/** A projection's own part of the views. */
export interface ViewRows {
  /** Creates what the rows need when missing; idempotent. */
  setup(): void;
  /** Drops every row (and whatever earlier versions of the projection left behind). */
  reset(): void;
}

export interface ViewsPort {
  readonly checkpoints: ProjectionCheckpoints;
  /**
   * Runs `work` in one transaction that holds the views' write lock from its start: every write inside
   * commits together, or none when `work` throws (the error is rethrown). Another writer of the same
   * views waits, so checkpoints read inside it are not stale.
   */
  transaction<T>(work: () => T): T;
}
