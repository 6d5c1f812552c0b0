import type { Database, Statement } from 'better-sqlite3';
import type { InterruptedInvocation } from '../../../domain/invocation';
import type {
  OpenInvocationFold,
  OpenInvocationRow,
  OpenInvocationsReads,
  OpenInvocationsWrites,
} from '../../../projections/open-invocations/view';
import { tableExists } from './table-exists';

const TABLE = 'open_invocations';

/** The stored text of a fold: its lists only (status, invocation id are the row's). */
interface StoredRecovery {
  readonly admitted: number;
  /** [action instance id, phase] in admission order. */
  readonly unsettled: readonly (readonly [string, 'admitted' | 'dispatched'])[];
  readonly unresolved: readonly string[];
}

const toStored = (fold: InterruptedInvocation): string =>
  fold.status === 'unopened'
    ? 'null'
    : JSON.stringify({
        admitted: fold.admitted,
        unsettled: fold.unsettled.map((action) => [action.actionInstanceId, action.phase]),
        unresolved: fold.unresolvedIndeterminate,
      } satisfies StoredRecovery);

const fromStored = (invocationId: string, text: string): InterruptedInvocation => {
  const stored = JSON.parse(text) as StoredRecovery;
  return {
    status: 'open',
    invocationId,
    admitted: stored.admitted,
    unsettled: stored.unsettled.map(([actionInstanceId, phase]) => ({ actionInstanceId, phase })),
    unresolvedIndeterminate: stored.unresolved,
  };
};

type Statements = {
  readonly insert: Statement<[string, string, string, string, string, string, number, string | null, number]>;
  readonly update: Statement<[number, string, string | null, string]>;
  readonly select: Statement<[string]>;
  readonly remove: Statement<[string]>;
};

/** The open-invocations rows in the SQLite views database: one row per open invocation, by its stream. */
export class SqliteOpenInvocations implements OpenInvocationsWrites, OpenInvocationsReads {
  /** Prepared on first use after setup; dropped with the table on reset. */
  private prepared: Statements | undefined;

  constructor(private readonly db: Database) {}

  setup(): void {
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      stream TEXT PRIMARY KEY,
      invocation_action_instance_id TEXT NOT NULL,
      participant_address TEXT NOT NULL,
      episode_id TEXT NOT NULL,
      opened_at TEXT NOT NULL,
      recovery TEXT NOT NULL,
      revision INTEGER NOT NULL,
      link TEXT,
      position INTEGER NOT NULL
    )`);
  }

  reset(): void {
    this.prepared = undefined;
    this.db.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  }

  open(row: OpenInvocationRow, position: number): void {
    this.statements().insert.run(
      row.invocation_action_instance_id,
      row.stream,
      row.participant_address,
      row.episode_id,
      row.opened_at,
      toStored(row.recovery),
      row.revision,
      row.link,
      position,
    );
  }

  fold(stream: string): OpenInvocationFold | undefined {
    const row = this.statements().select.get(stream) as [invocationId: string, revision: number, recovery: string, link: string | null] | undefined;
    return row === undefined ? undefined : { recovery: fromStored(row[0], row[2]), revision: row[1], link: row[3] };
  }

  updateFold(stream: string, fold: OpenInvocationFold): void {
    this.statements().update.run(fold.revision, toStored(fold.recovery), fold.link, stream);
  }

  close(stream: string): void {
    this.statements().remove.run(stream);
  }

  listOpen(): readonly OpenInvocationRow[] {
    if (!tableExists(this.db, TABLE)) return [];
    const rows = this.db
      .prepare(
        `SELECT invocation_action_instance_id, stream, participant_address, episode_id, opened_at, recovery, revision, link FROM ${TABLE} ORDER BY position`,
      )
      .raw(true)
      .all() as [string, string, string, string, string, string, number, string | null][];
    return rows.map(([invocationId, stream, participant, episode, openedAt, recovery, revision, link]) => ({
      invocation_action_instance_id: invocationId,
      stream,
      participant_address: participant,
      episode_id: episode,
      opened_at: openedAt,
      recovery: fromStored(invocationId, recovery),
      revision,
      link,
    }));
  }

  private statements(): Statements {
    if (this.prepared === undefined) {
      const db = this.db;
      this.prepared = {
        insert: db.prepare(
          `INSERT OR REPLACE INTO ${TABLE} (invocation_action_instance_id, stream, participant_address, episode_id, opened_at, recovery, revision, link, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ),
        update: db.prepare(`UPDATE ${TABLE} SET revision = ?, recovery = ?, link = ? WHERE stream = ?`),
        select: db.prepare(`SELECT invocation_action_instance_id, revision, recovery, link FROM ${TABLE} WHERE stream = ?`).raw(true),
        remove: db.prepare(`DELETE FROM ${TABLE} WHERE stream = ?`),
      };
    }
    return this.prepared;
  }
}
