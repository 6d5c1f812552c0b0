import type { Database, Statement } from 'better-sqlite3';
import type { RecordedEvent } from '../../adapters/event-store/port';
import type { InvocationOpened } from '../../domain/invocation';
import { INVOCATION_STREAM_PREFIX } from '../../domain/streams';
import type { Projection } from '../runner';

/**
 * The participant history: one row per closed invocation, in the order invocations closed, holding the
 * invocation's events that its history reads (all but dispatches and later resolutions) as a JSON
 * array. The query renders each row's RAES behavior history with the
 * domain's `invocationHistory` (see query.ts), so the rows are the history's source, not a copy of it:
 * a rebuild reads the store once and writes the events as the store holds them, without parsing them
 * (only InvocationOpened is parsed, for the row's participant and episode) and without rendering,
 * digesting and serializing a history nobody may ask for. History is visible all together when its
 * invocation closes (SPEC.md section 6): an open invocation's events wait in a buffer until then.
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

/**
 * An open invocation's events so far, as JSON text; the first `persisted` of them are already in the
 * buffer table.
 */
type Pending = {
  readonly participant: string;
  readonly episode: string;
  readonly events: string[];
  persisted: number;
};

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

/** The event's data as JSON text: the store's own text when it keeps one, else serialized here. */
const dataText = (event: RecordedEvent): string => event.dataJson ?? JSON.stringify(event.data);

/** `events` becomes the pending invocation's own list. */
const opened = (events: string[], opening: InvocationOpened): Pending => ({
  participant: opening.port_values.participant_address,
  episode: opening.port_values.episode_id,
  events,
  persisted: 0,
});

/** The invocation's events so far: from this page's memory, else from the buffer table. */
const pendingOf = (views: Database, buffer: Map<string, Pending>, invocationId: string): Pending | undefined => {
  const inMemory = buffer.get(invocationId);
  if (inMemory !== undefined) return inMemory;
  const stored = statements(views).selectPending.all(invocationId) as string[];
  if (stored.length === 0) return undefined;
  const pending = opened(stored, JSON.parse(stored[0]!) as InvocationOpened);
  pending.persisted = stored.length;
  buffer.set(invocationId, pending);
  return pending;
};

/*
 * Each event repeats its invocation's id, some several times (in action ids, requests and results), and
 * the participant's address: a row holds them once, in its own columns, and its events text holds a
 * control character in their place. JSON text never holds a raw control character (JSON escapes them
 * inside strings), so the substitution is undone exactly.
 */
const INVOCATION_MARK = '\u0001';
const PARTICIPANT_MARK = '\u0002';

/** The row's events text: the events as a JSON array, the row's invocation id and participant marked. */
export const packEvents = (events: readonly string[], invocationId: string, participant: string): string =>
  `[${events.join(',')}]`.split(invocationId).join(INVOCATION_MARK).split(participant).join(PARTICIPANT_MARK);

/** The JSON array `packEvents` was given. */
export const unpackEvents = (packed: string, invocationId: string, participant: string): string =>
  packed.split(PARTICIPANT_MARK).join(participant).split(INVOCATION_MARK).join(invocationId);

const storeRow = (views: Database, pending: Pending, invocationId: string): void => {
  const s = statements(views);
  s.insertRow.run(pending.participant, pending.episode, invocationId, packEvents(pending.events, invocationId, pending.participant));
  if (pending.persisted > 0) s.deletePending.run(invocationId);
};

const apply = (views: Database, recorded: RecordedEvent): void => {
  const stream = recorded.stream;
  if (!stream.startsWith(INVOCATION_STREAM_PREFIX)) return;
  // The engine appends each event under its own type, and each invocation's events to its own stream.
  const type = recorded.type;
  // A resolution after close does not rewrite the recorded history, and the history does not read
  // when an action was dispatched (only settled actions make triples).
  if (type === 'ToolActionResolved' || type === 'ToolActionDispatched') return;
  const invocationId = stream.slice(INVOCATION_STREAM_PREFIX.length);
  const buffer = pageBuffer(views);
  if (type === 'InvocationOpened') {
    buffer.set(invocationId, opened([dataText(recorded)], recorded.data as unknown as InvocationOpened));
    return;
  }
  const pending = pendingOf(views, buffer, invocationId);
  // Events of an invocation whose opening this view never saw cannot form a history.
  if (pending === undefined) return;
  pending.events.push(dataText(recorded));
  if (type === 'InvocationClosed') {
    storeRow(views, pending, invocationId);
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
    for (let i = pending.persisted; i < events.length; i++) insert.run(invocationId, i, events[i]!);
  }
  pageBuffers.delete(views);
};

export const participantHistoryProjection: Projection = {
  name: 'participant-history',
  version: 3,
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
