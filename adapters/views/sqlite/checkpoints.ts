import type { Database, Statement } from 'better-sqlite3';
import type { ProjectionCheckpoint, ProjectionCheckpoints } from '../../../domain/ports/views';
import { tableExists } from './table-exists';

const TABLE = 'projection_checkpoints';

type Statements = {
  readonly read: Statement<[string]>;
  readonly write: Statement<[string, number, bigint | null]>;
  readonly remove: Statement<[string]>;
};

/**
 * The checkpoints table of the SQLite views database, created by the first write: reading views
 * nobody has written yet (an audit before any catch-up) leaves the file as it was.
 */
export class SqliteCheckpoints implements ProjectionCheckpoints {
  private prepared: Statements | undefined;

  constructor(private readonly db: Database) {}

  read(name: string): ProjectionCheckpoint | undefined {
    if (this.prepared === undefined && !tableExists(this.db, TABLE)) return undefined;
    const row = this.statements().read.get(name) as { version: bigint; position: bigint | null } | undefined;
    return row === undefined ? undefined : { version: Number(row.version), position: row.position };
  }

  write(name: string, checkpoint: ProjectionCheckpoint): void {
    this.statements().write.run(name, checkpoint.version, checkpoint.position);
  }

  remove(name: string): void {
    this.statements().remove.run(name);
  }

  private statements(): Statements {
    if (this.prepared === undefined) {
      const db = this.db;
      db.exec(`
        CREATE TABLE IF NOT EXISTS ${TABLE} (
          name     TEXT    PRIMARY KEY,
          version  INTEGER NOT NULL,
          position INTEGER
        );
      `);
      this.prepared = {
        read: db.prepare<[string]>(`SELECT version, position FROM ${TABLE} WHERE name = ?`).safeIntegers(true),
        write: db.prepare<[string, number, bigint | null]>(
          `INSERT INTO ${TABLE} (name, version, position) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = excluded.position`,
        ),
        remove: db.prepare<[string]>(`DELETE FROM ${TABLE} WHERE name = ?`),
      };
    }
    return this.prepared;
  }
}
