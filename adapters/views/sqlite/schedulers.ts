import type { Database, Statement } from 'better-sqlite3';
import type { SchedulerStatus, SchedulersReads, SchedulersWrites } from '../../../projections/schedulers/view';
import { tableExists } from './table-exists';

const TABLE = 'schedulers';

type Statements = {
  readonly select: Statement<[string]>;
  readonly upsert: Statement<[string, string, string, string]>;
};

/** The schedulers table of the SQLite views database: each scheduler's status as JSON, by stream. */
export class SqliteSchedulers implements SchedulersWrites, SchedulersReads {
  /** Prepared on first use after setup; dropped with the table on reset. */
  private prepared: Statements | undefined;

  constructor(private readonly db: Database) {}

  setup(): void {
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      stream TEXT PRIMARY KEY,
      participant_address TEXT NOT NULL,
      policy_address TEXT NOT NULL,
      state TEXT NOT NULL
    )`);
  }

  reset(): void {
    this.prepared = undefined;
    this.db.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  }

  status(stream: string): SchedulerStatus | undefined {
    const stored = this.statements().select.get(stream) as string | undefined;
    return stored === undefined ? undefined : (JSON.parse(stored) as SchedulerStatus);
  }

  save(stream: string, status: SchedulerStatus): void {
    this.statements().upsert.run(stream, status.participant_address, status.policy_address, JSON.stringify(status));
  }

  list(participant?: string): readonly SchedulerStatus[] {
    if (!tableExists(this.db, TABLE)) return [];
    const rows = (
      participant === undefined
        ? this.db.prepare(`SELECT state FROM ${TABLE} ORDER BY participant_address, policy_address`).pluck().all()
        : this.db.prepare(`SELECT state FROM ${TABLE} WHERE participant_address = ? ORDER BY policy_address`).pluck().all(participant)
    ) as string[];
    return rows.map((row) => JSON.parse(row) as SchedulerStatus);
  }

  private statements(): Statements {
    if (this.prepared === undefined) {
      this.prepared = {
        select: this.db.prepare<[string]>(`SELECT state FROM ${TABLE} WHERE stream = ?`).pluck(),
        upsert: this.db.prepare<[string, string, string, string]>(
          `INSERT INTO ${TABLE} (stream, participant_address, policy_address, state) VALUES (?, ?, ?, ?) ON CONFLICT(stream) DO UPDATE SET state = excluded.state`,
        ),
      };
    }
    return this.prepared;
  }
}
