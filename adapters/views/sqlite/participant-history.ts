import type { Database, Statement } from 'better-sqlite3';
import type {
  HistoryFilter,
  HistoryIndexRow,
  OpenedFor,
  ParticipantHistoryReads,
  ParticipantHistoryWrites,
} from '../../../projections/participant-history/view';
import { tableExists } from './table-exists';

const HISTORY_TABLE = 'participant_history_index';
const OPENED_TABLE = 'participant_history_open';

type Statements = {
  readonly insertRow: Statement<[string, string, string, number]>;
  readonly insertOpened: Statement<[string, string, string]>;
  readonly selectOpened: Statement<[string]>;
  readonly deleteOpened: Statement<[string]>;
};

/**
 * The participant-history index in the SQLite views database: the closed invocations in the order
 * they closed (`seq`), and the invocations a page left open.
 */
export class SqliteParticipantHistory implements ParticipantHistoryWrites, ParticipantHistoryReads {
  /** Prepared on first use after setup; dropped with the tables on reset. */
  private prepared: Statements | undefined;

  constructor(private readonly db: Database) {}

  setup(): void {
    // No index beside the primary key: a query narrowed to a participant, an episode or an invocation
    // scans these small rows, and its time goes to reading and rendering the streams (docs/decisions.md).
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS ${HISTORY_TABLE} (
        seq INTEGER PRIMARY KEY,
        participant_address TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        invocation_action_instance_id TEXT NOT NULL,
        closing_revision INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS ${OPENED_TABLE} (
        stream TEXT PRIMARY KEY,
        participant_address TEXT NOT NULL,
        episode_id TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
  }

  reset(): void {
    this.prepared = undefined;
    // The tables of earlier versions go too: version 3 kept each closed invocation's events.
    this.db.exec(`
      DROP TABLE IF EXISTS participant_history_events;
      DROP TABLE IF EXISTS participant_history_invocations;
      DROP TABLE IF EXISTS participant_history_pending;
      DROP TABLE IF EXISTS ${HISTORY_TABLE};
      DROP TABLE IF EXISTS ${OPENED_TABLE};
    `);
  }

  appendClosed(row: HistoryIndexRow): void {
    this.statements().insertRow.run(row.participant, row.episode, row.invocation, row.closingRevision);
  }

  keepOpened(stream: string, openedFor: OpenedFor): void {
    this.statements().insertOpened.run(stream, openedFor.participant, openedFor.episode);
  }

  opened(stream: string): OpenedFor | undefined {
    const stored = this.statements().selectOpened.get(stream) as [participant: string, episode: string] | undefined;
    return stored === undefined ? undefined : { participant: stored[0], episode: stored[1] };
  }

  forgetOpened(stream: string): void {
    this.statements().deleteOpened.run(stream);
  }

  closedInvocations(filter: HistoryFilter): readonly HistoryIndexRow[] {
    return [...this.eachClosedInvocation(filter)];
  }

  *eachClosedInvocation(filter: HistoryFilter): IterableIterator<HistoryIndexRow> {
    if (!tableExists(this.db, HISTORY_TABLE)) return;
    const clauses: string[] = [];
    const values: string[] = [];
    if (filter.participant !== undefined) {
      clauses.push('participant_address = ?');
      values.push(filter.participant);
    }
    if (filter.episode !== undefined) {
      clauses.push('episode_id = ?');
      values.push(filter.episode);
    }
    if (filter.invocation !== undefined) {
      clauses.push('invocation_action_instance_id = ?');
      values.push(filter.invocation);
    }
    const where = clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`;
    const rows = this.db
      .prepare(`SELECT participant_address, episode_id, invocation_action_instance_id, closing_revision FROM ${HISTORY_TABLE}${where} ORDER BY seq`)
      .raw(true)
      .iterate(...values) as IterableIterator<[participant: string, episode: string, invocation: string, closingRevision: number]>;
    for (const [participant, episode, invocation, closingRevision] of rows) yield { participant, episode, invocation, closingRevision };
  }

  private statements(): Statements {
    if (this.prepared === undefined) {
      const db = this.db;
      this.prepared = {
        insertRow: db.prepare(
          `INSERT INTO ${HISTORY_TABLE} (participant_address, episode_id, invocation_action_instance_id, closing_revision) VALUES (?, ?, ?, ?)`,
        ),
        insertOpened: db.prepare(`INSERT INTO ${OPENED_TABLE} (stream, participant_address, episode_id) VALUES (?, ?, ?)`),
        selectOpened: db.prepare(`SELECT participant_address, episode_id FROM ${OPENED_TABLE} WHERE stream = ?`).raw(true),
        deleteOpened: db.prepare(`DELETE FROM ${OPENED_TABLE} WHERE stream = ?`),
      };
    }
    return this.prepared;
  }
}
