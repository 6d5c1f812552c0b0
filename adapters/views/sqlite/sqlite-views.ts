import type { Database, Transaction } from 'better-sqlite3';
import type { ViewsPort } from '../../../domain/ports/views';
import type { AllProjectionViews } from '../../../projections';
import type { OpenInvocationsViews } from '../../../projections/open-invocations';
import type { SchedulerSnapshotsViews } from '../../../projections/scheduler-snapshots';
import { SqliteCheckpoints } from './checkpoints';
import { SqliteOpenInvocations } from './open-invocations';
import { SqliteOperations } from './operations';
import { SqliteParticipantHistory } from './participant-history';
import { SqliteSchedulerSnapshots } from './scheduler-snapshots';
import { SqliteSchedulers } from './schedulers';

/**
 * The views port over one SQLite views database: the runner's transaction and checkpoints, and every
 * projection's rows, each written and read with its own prepared statements.
 */
export class SqliteViews implements ViewsPort, AllProjectionViews, OpenInvocationsViews, SchedulerSnapshotsViews {
  readonly checkpoints: SqliteCheckpoints;
  readonly openInvocations: SqliteOpenInvocations;
  readonly participantHistory: SqliteParticipantHistory;
  readonly operations: SqliteOperations;
  readonly schedulers: SqliteSchedulers;
  readonly schedulerSnapshots: SqliteSchedulerSnapshots;
  private readonly inTransaction: Transaction<(work: () => unknown) => unknown>;

  constructor(readonly database: Database) {
    this.checkpoints = new SqliteCheckpoints(database);
    this.openInvocations = new SqliteOpenInvocations(database);
    this.participantHistory = new SqliteParticipantHistory(database);
    this.operations = new SqliteOperations(database);
    this.schedulers = new SqliteSchedulers(database);
    this.schedulerSnapshots = new SqliteSchedulerSnapshots(database);
    this.inTransaction = database.transaction((work: () => unknown) => work());
  }

  /** BEGIN IMMEDIATE: the write lock is taken before the first read, so no other connection writes in between. */
  transaction<T>(work: () => T): T {
    return this.inTransaction.immediate(work) as T;
  }

  close(): void {
    this.database.close();
  }
}

const viewsByDatabase = new WeakMap<Database, SqliteViews>();

/** The views over `database`, one per connection: its statements are prepared once for all its users. */
export const sqliteViews = (database: Database): SqliteViews => {
  let views = viewsByDatabase.get(database);
  if (views === undefined) {
    views = new SqliteViews(database);
    viewsByDatabase.set(database, views);
  }
  return views;
};
