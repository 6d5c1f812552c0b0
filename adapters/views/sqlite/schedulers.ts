import type { Database, Statement } from 'better-sqlite3';
import type { SchedulerFilter, SchedulerStatus, SchedulersReads, SchedulersWrites } from '../../../projections/schedulers/view';
import { tableExists } from './table-exists';

const TABLE = 'schedulers';

type Statements = {
  readonly select: Statement<[string]>;
  readonly upsert: Statement<[string, string, string, string, string]>;
};

/** The schedulers table of the SQLite views database: each scheduler's status as JSON, by stream, with its episode. */
export class SqliteSchedulers implements SchedulersWrites, SchedulersReads {
  /** Prepared on first use after setup; dropped with the table on reset. */
  private prepared: Statements | undefined;

  constructor(private readonly db: Database) {}

  setup(): void {
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      stream TEXT PRIMARY KEY,
      episode_id TEXT NOT NULL,
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

  save(stream: string, episodeId: string, status: SchedulerStatus): void {
    this.statements().upsert.run(stream, episodeId, status.participant_address, status.policy_address, JSON.stringify(status));
  }

  list(filter: SchedulerFilter): readonly SchedulerStatus[] {
    if (!tableExists(this.db, TABLE)) return [];
    const clauses: string[] = [];
    const values: string[] = [];
    if (filter.episode !== undefined) {
      clauses.push('episode_id = ?');
      values.push(filter.episode);
    }
    if (filter.participant !== undefined) {
      clauses.push('participant_address = ?');
      values.push(filter.participant);
    }
    const where = clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`;
    const rows = this.db.prepare(`SELECT state FROM ${TABLE}${where} ORDER BY participant_address, policy_address, episode_id`).pluck().all(...values) as string[];
    return rows.map((row) => JSON.parse(row) as SchedulerStatus);
  }

  episodes(): readonly string[] {
    if (!tableExists(this.db, TABLE)) return [];
    return this.db.prepare(`SELECT episode_id FROM ${TABLE} GROUP BY episode_id ORDER BY MIN(rowid)`).pluck().all() as string[];
  }

  private statements(): Statements {
    if (this.prepared === undefined) {
      this.prepared = {
        select: this.db.prepare<[string]>(`SELECT state FROM ${TABLE} WHERE stream = ?`).pluck(),
        upsert: this.db.prepare<[string, string, string, string, string]>(
          `INSERT INTO ${TABLE} (stream, episode_id, participant_address, policy_address, state) VALUES (?, ?, ?, ?, ?) ON CONFLICT(stream) DO UPDATE SET state = excluded.state`,
        ),
      };
    }
    return this.prepared;
  }
}
