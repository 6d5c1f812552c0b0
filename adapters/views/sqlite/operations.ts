import type { Database, Statement } from 'better-sqlite3';
import { toolActionInstanceIdPrefix } from '../../../domain/addresses';
import type { OperationRow, OperationsReads, OperationsWrites } from '../../../projections/operations/view';
import { tableExists } from './table-exists';

const TABLE = 'operations';

/** The table's columns, in its order: exactly the row's fields (a field added to the row must be added here). */
const COLUMN_SET: Record<keyof OperationRow, true> = {
  operation_id: true,
  operation_kind: true,
  parent_operation_id: true,
  participant_address: true,
  episode_id: true,
  action_contract_address: true,
  state: true,
  settlement: true,
  settlement_reason: true,
  submitted_at: true,
  updated_at: true,
  tool_call_id: true,
  admission_ordinal: true,
  attempt_outcome: true,
  resolution_effect: true,
  resolution_evidence_ref: true,
  resolved_at: true,
};
const COLUMNS = Object.keys(COLUMN_SET) as (keyof OperationRow)[];
/** The columns an update sets, then its key: an update's parameters in order. */
const UPDATED = COLUMNS.filter((c) => c !== 'operation_id' && c !== 'episode_id');
const UPDATE_ORDER: readonly (keyof OperationRow)[] = [...UPDATED, 'episode_id', 'operation_id'];

/** Positional parameters: binding by name costs better-sqlite3 a lookup per column, per row. */
const valuesOf = (row: OperationRow, order: readonly (keyof OperationRow)[]): unknown[] => {
  const values = new Array<unknown>(order.length);
  for (let i = 0; i < order.length; i++) values[i] = row[order[i]!];
  return values;
};

/** The first text after every text that starts with `prefix` (its last character, one code point on). */
const pastPrefix = (prefix: string): string => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

type Statements = {
  readonly select: Statement<[string, string]>;
  readonly insert: Statement<unknown[]>;
  readonly update: Statement<unknown[]>;
};

/** The operations table of the SQLite views database: one row per episode and operation, keyed by both. */
export class SqliteOperations implements OperationsWrites, OperationsReads {
  /** Prepared on first use after setup; dropped with the table on reset. */
  private prepared: Statements | undefined;

  constructor(private readonly db: Database) {}

  setup(): void {
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS ${TABLE} (
        operation_id TEXT NOT NULL,
        operation_kind TEXT NOT NULL,
        parent_operation_id TEXT,
        participant_address TEXT,
        episode_id TEXT NOT NULL,
        action_contract_address TEXT,
        state TEXT NOT NULL,
        settlement TEXT,
        settlement_reason TEXT,
        submitted_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        tool_call_id TEXT,
        admission_ordinal INTEGER,
        attempt_outcome TEXT,
        resolution_effect TEXT,
        resolution_evidence_ref TEXT,
        resolved_at TEXT,
        PRIMARY KEY (episode_id, operation_id)
      );
    `);
  }

  reset(): void {
    this.prepared = undefined;
    this.db.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  }

  find(episodeId: string, operationId: string): OperationRow | undefined {
    return this.statements().select.get(episodeId, operationId) as OperationRow | undefined;
  }

  insert(row: OperationRow): void {
    this.statements().insert.run(valuesOf(row, COLUMNS));
  }

  update(row: OperationRow): void {
    this.statements().update.run(valuesOf(row, UPDATE_ORDER));
  }

  operation(episodeId: string, operationId: string): OperationRow | undefined {
    if (!tableExists(this.db, TABLE)) return undefined;
    return this.db.prepare(`SELECT * FROM ${TABLE} WHERE episode_id = ? AND operation_id = ?`).get(episodeId, operationId) as OperationRow | undefined;
  }

  /**
   * A tool action's id starts with its invocation's (domain/addresses.ts), so its children are a range of
   * the primary key: an index by parent would cost every page's commit as much as the key's own index.
   */
  children(episodeId: string, parentOperationId: string): readonly OperationRow[] {
    if (!tableExists(this.db, TABLE)) return [];
    const prefix = toolActionInstanceIdPrefix(parentOperationId);
    return this.db
      .prepare(
        `SELECT * FROM ${TABLE} WHERE episode_id = ? AND operation_id > ? AND operation_id < ? AND parent_operation_id = ? ORDER BY admission_ordinal`,
      )
      .all(episodeId, prefix, pastPrefix(prefix), parentOperationId) as OperationRow[];
  }

  private statements(): Statements {
    if (this.prepared === undefined) {
      const db = this.db;
      this.prepared = {
        select: db.prepare(`SELECT * FROM ${TABLE} WHERE episode_id = ? AND operation_id = ?`),
        insert: db.prepare(`INSERT INTO ${TABLE} (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`),
        update: db.prepare(
          `UPDATE ${TABLE} SET ${UPDATED.map((c) => `${c} = ?`).join(', ')} WHERE episode_id = ? AND operation_id = ?`,
        ),
      };
    }
    return this.prepared;
  }
}
