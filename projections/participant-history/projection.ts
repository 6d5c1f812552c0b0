import type { Database, Statement } from 'better-sqlite3';
import type { RecordedEvent } from '../../adapters/event-store/port';
import { invocationHistory, type InvocationEvent } from '../../domain/invocation';
import type { Projection } from '../runner';
import { asInvocationEvent } from '../stored-events';

/**
 * The participant history: each closed invocation's RAES behavior history, stored in the order
 * invocations closed, one row per invocation holding its history events as a JSON array (one insert
 * per invocation instead of one per event: the rebuild writes about one history event per stored event). An open invocation's events wait in a buffer; at InvocationClosed the
 * domain's `invocationHistory` turns them into rows and the buffer is dropped, so history becomes
 * visible all together when its invocation closes (SPEC.md section 6).
 *
 * Within a page the buffer is kept in memory; at the end of the page what is still open is written to
 * the views database in the same transaction as the checkpoint, so a restart resumes with it.
 */

export const HISTORY_TABLE = 'participant_history_invocations';
const PENDING_TABLE = 'participant_history_pending';

type Statements = {
  readonly insertRow: Statement<[string, string, string, string]>;
  readonly insertPending: Statement<[string, number, string]>;
  readonly selectPending: Statement<[string]>;
  readonly deletePending: Statement<[string]>;
};

/** An open invocation's events seen so far; the first `persisted` of them are already in the buffer table. */
type Pending = { readonly events: InvocationEvent[]; persisted: number };

const statementsByViews = new WeakMap<Database, Statements>();
/** Per views database, the open invocations touched during the page in hand. */
const pageBuffers = new Map<Database, Map<string, Pending>>();

const statements = (views: Database): Statements => {
  let found = statementsByViews.get(views);
  if (found === undefined) {
    found = {
      insertRow: views.prepare(
        `INSERT INTO ${HISTORY_TABLE} (participant_address, episode_id, invocation_action_instance_id, events) VALUES (?, ?, ?, ?)`,
      ),
      insertPending: views.prepare(`INSERT INTO ${PENDING_TABLE} (invocation_action_instance_id, seq, event) VALUES (?, ?, ?)`),
      selectPending: views.prepare(`SELECT event FROM ${PENDING_TABLE} WHERE invocation_action_instance_id = ? ORDER BY seq`).pluck(),
      deletePending: views.prepare(`DELETE FROM ${PENDING_TABLE} WHERE invocation_action_instance_id = ?`),
    };
    statementsByViews.set(views, found);
  }
  return found;
};

const pageBuffer = (views: Database): Map<string, Pending> => {
  let buffer = pageBuffers.get(views);
  if (buffer === undefined) {
    buffer = new Map();
    pageBuffers.set(views, buffer);
  }
  return buffer;
};

/** The invocation's events so far: from this page's memory, else from the buffer table. */
const pendingOf = (views: Database, buffer: Map<string, Pending>, invocationId: string): Pending | undefined => {
  const inMemory = buffer.get(invocationId);
  if (inMemory !== undefined) return inMemory;
  const stored = statements(views).selectPending.all(invocationId) as string[];
  if (stored.length === 0) return undefined;
  const events: InvocationEvent[] = new Array<InvocationEvent>(stored.length);
  for (let i = 0; i < stored.length; i++) events[i] = JSON.parse(stored[i]!) as InvocationEvent;
  const pending: Pending = { events, persisted: stored.length };
  buffer.set(invocationId, pending);
  return pending;
};

const storeHistory = (views: Database, pending: Pending, invocationId: string): void => {
  const s = statements(views);
  const history = invocationHistory(pending.events);
  const first = history[0];
  // An invocation that closed with no settled tool action and no valid result has no history.
  if (first !== undefined) s.insertRow.run(first.participant_address, first.episode_id, invocationId, JSON.stringify(history));
  if (pending.persisted > 0) s.deletePending.run(invocationId);
};

const apply = (views: Database, recorded: RecordedEvent): void => {
  const event = asInvocationEvent(recorded);
  if (event === undefined) return;
  const type = event.type;
  // A resolution after close does not rewrite the recorded history.
  if (type === 'ToolActionResolved') return;
  const invocationId = event.invocation_action_instance_id;
  const buffer = pageBuffer(views);
  if (type === 'InvocationOpened') {
    buffer.set(invocationId, { events: [event], persisted: 0 });
    return;
  }
  const pending = pendingOf(views, buffer, invocationId);
  // Events of an invocation whose opening this view never saw cannot form a history.
  if (pending === undefined) return;
  pending.events.push(event);
  if (type === 'InvocationClosed') {
    storeHistory(views, pending, invocationId);
    buffer.delete(invocationId);
  }
};

/** Writes what is still open at the end of the page to the buffer table. */
const endPage = (views: Database): void => {
  const buffer = pageBuffers.get(views);
  if (buffer === undefined) return;
  const insert = statements(views).insertPending;
  for (const [invocationId, pending] of buffer) {
    const events = pending.events;
    for (let i = pending.persisted; i < events.length; i++) insert.run(invocationId, i, JSON.stringify(events[i]));
  }
  pageBuffers.delete(views);
};

export const participantHistoryProjection: Projection = {
  name: 'participant-history',
  version: 2,
  setup(views) {
    views.exec(`
      CREATE TABLE IF NOT EXISTS ${HISTORY_TABLE} (
        seq INTEGER PRIMARY KEY,
        participant_address TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        invocation_action_instance_id TEXT NOT NULL,
        events TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS ${HISTORY_TABLE}_by_participant ON ${HISTORY_TABLE} (participant_address, episode_id);
      CREATE INDEX IF NOT EXISTS ${HISTORY_TABLE}_by_invocation ON ${HISTORY_TABLE} (invocation_action_instance_id);
      CREATE TABLE IF NOT EXISTS ${PENDING_TABLE} (
        invocation_action_instance_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (invocation_action_instance_id, seq)
      ) WITHOUT ROWID;
    `);
  },
  reset(views) {
    statementsByViews.delete(views);
    pageBuffers.delete(views);
    views.exec(`DROP TABLE IF EXISTS participant_history_events; DROP TABLE IF EXISTS ${HISTORY_TABLE}; DROP TABLE IF EXISTS ${PENDING_TABLE};`);
  },
  apply,
  endPage,
  discardPending() {
    pageBuffers.clear();
  },
};
