import type { Database, Statement } from 'better-sqlite3';
import { schedulerStateData, schedulerStateOf, type SchedulerStateData } from '../../../domain/scheduler';
import type { SchedulerSnapshot } from '../../../domain/ports/open-invocations';
import type { SchedulerSnapshotsReads, SchedulerSnapshotsWrites } from '../../../projections/scheduler-snapshots/view';
import { tableExists } from './table-exists';

const TABLE = 'scheduler_snapshots';

const snapshotOf = (row: Omit<Row, 'stream'>): SchedulerSnapshot => ({
  state: schedulerStateOf(JSON.parse(row.state) as SchedulerStateData),
  revision: row.revision,
  link: row.link,
});

type Row = { readonly stream: string; readonly revision: number; readonly state: string; readonly link: string | null };

type Statements = {
  readonly select: Statement<[string]>;
  readonly upsert: Statement<[string, number, string, string | null]>;
};

/**
 * The scheduler snapshots of the SQLite views database: each stream's folded state as JSON (the shape a
 * `SchedulerCheckpointed` event records), its revision and the link digest of the event there (null when
 * it carries none).
 */
export class SqliteSchedulerSnapshots implements SchedulerSnapshotsWrites, SchedulerSnapshotsReads {
  /** Prepared on first use after setup; dropped with the table on reset. */
  private prepared: Statements | undefined;

  constructor(private readonly db: Database) {}

  setup(): void {
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (stream TEXT PRIMARY KEY, revision INTEGER NOT NULL, state TEXT NOT NULL, link TEXT)`);
  }

  reset(): void {
    this.prepared = undefined;
    this.db.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  }

  snapshot(stream: string): SchedulerSnapshot | undefined {
    const row = this.statements().select.get(stream) as Omit<Row, 'stream'> | undefined;
    return row === undefined ? undefined : snapshotOf(row);
  }

  save(stream: string, snapshot: SchedulerSnapshot): void {
    this.statements().upsert.run(stream, snapshot.revision, JSON.stringify(schedulerStateData(snapshot.state)), snapshot.link ?? null);
  }

  all(): ReadonlyMap<string, SchedulerSnapshot> {
    const snapshots = new Map<string, SchedulerSnapshot>();
    if (!tableExists(this.db, TABLE)) return snapshots;
    for (const row of this.db.prepare(`SELECT stream, revision, state, link FROM ${TABLE}`).iterate() as IterableIterator<Row>) snapshots.set(row.stream, snapshotOf(row));
    return snapshots;
  }

  private statements(): Statements {
    if (this.prepared === undefined) {
      this.prepared = {
        select: this.db.prepare<[string]>(`SELECT revision, state, link FROM ${TABLE} WHERE stream = ?`),
        upsert: this.db.prepare<[string, number, string, string | null]>(
          `INSERT INTO ${TABLE} (stream, revision, state, link) VALUES (?, ?, ?, ?) ON CONFLICT(stream) DO UPDATE SET revision = excluded.revision, state = excluded.state, link = excluded.link`,
        ),
      };
    }
    return this.prepared;
  }
}
