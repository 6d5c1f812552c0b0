import type { Database, Statement } from 'better-sqlite3';
import type { RecordedEvent } from '../../domain/ports/event-store';
import type { InvocationOpened } from '../../domain/invocation';
import { INVOCATION_STREAM_PREFIX } from '../../domain/streams';
import { PageMemory } from '../page-memory';
import type { Projection } from '../runner';

/**
 * The participant history: an index of the closed invocations, one row per invocation in the order they
 * closed, naming its participant, episode, invocation id and the revision of its stream's
 * `InvocationClosed`. The events stay in the store: the query reads each invocation's stream up to that
 * revision and renders its RAES behavior history with the domain's `invocationHistory` (see render.ts).
 * A rebuild reads the store once and writes about 150 bytes per invocation; it parses only
 * `InvocationOpened` (for the participant and the episode) and renders nothing. History is visible all
 * together when its invocation closes (docs/rules.md, history).
 *
 * Between opening and closing, an invocation's participant and episode wait in memory within a page; at
 * the end of the page what is still open is written to the views database in the same transaction as
 * the checkpoint, so a restart resumes with it.
 */

export const HISTORY_TABLE = 'participant_history_index';
const PENDING_TABLE = 'participant_history_open';

type Statements = {
  readonly insertRow: Statement<[string, string, string, number]>;
  readonly insertPending: Statement<[string, string, string]>;
  readonly selectPending: Statement<[string]>;
  readonly deletePending: Statement<[string]>;
};

/** An opened invocation not closed yet; `persisted` when its row is in the open table. */
type Pending = {
  readonly participant: string;
  readonly episode: string;
  readonly persisted: boolean;
};

const statementsByViews = new WeakMap<Database, Statements>();
/** Per views database, the invocations opened during the page in hand, or read from the open table. */
const pageBuffers = new PageMemory<Pending>();

const statements = (views: Database): Statements => {
  let found = statementsByViews.get(views);
  if (found === undefined) {
    found = {
      insertRow: views.prepare(
        `INSERT INTO ${HISTORY_TABLE} (participant_address, episode_id, invocation_action_instance_id, closing_revision) VALUES (?, ?, ?, ?)`,
      ),
      insertPending: views.prepare(`INSERT INTO ${PENDING_TABLE} (invocation_action_instance_id, participant_address, episode_id) VALUES (?, ?, ?)`),
      selectPending: views.prepare(`SELECT participant_address, episode_id FROM ${PENDING_TABLE} WHERE invocation_action_instance_id = ?`).raw(true),
      deletePending: views.prepare(`DELETE FROM ${PENDING_TABLE} WHERE invocation_action_instance_id = ?`),
    };
    statementsByViews.set(views, found);
  }
  return found;
};

/** The open invocation's participant and episode: from this page's memory, else from the open table. */
const pendingOf = (views: Database, buffer: Map<string, Pending>, invocationId: string): Pending | undefined => {
  const inMemory = buffer.get(invocationId);
  if (inMemory !== undefined) return inMemory;
  const stored = statements(views).selectPending.get(invocationId) as [participant: string, episode: string] | undefined;
  if (stored === undefined) return undefined;
  return { participant: stored[0], episode: stored[1], persisted: true };
};

const apply = (views: Database, recorded: RecordedEvent): void => {
  const stream = recorded.stream;
  if (!stream.startsWith(INVOCATION_STREAM_PREFIX)) return;
  // The engine appends each event under its own type, and each invocation's events to its own stream.
  const type = recorded.type;
  if (type === 'InvocationOpened') {
    const opening = recorded.data as unknown as InvocationOpened;
    pageBuffers.of(views).set(stream.slice(INVOCATION_STREAM_PREFIX.length), {
      participant: opening.port_values.participant_address,
      episode: opening.port_values.episode_id,
      persisted: false,
    });
    return;
  }
  if (type !== 'InvocationClosed') return;
  const invocationId = stream.slice(INVOCATION_STREAM_PREFIX.length);
  const buffer = pageBuffers.of(views);
  const pending = pendingOf(views, buffer, invocationId);
  // An invocation whose opening this view never saw cannot form a history.
  if (pending === undefined) return;
  const s = statements(views);
  s.insertRow.run(pending.participant, pending.episode, invocationId, Number(recorded.revision));
  if (pending.persisted) s.deletePending.run(invocationId);
  buffer.delete(invocationId);
};

/** Writes the invocations opened during the page and still open to the open table. */
const endPage = (views: Database): void => {
  const buffer = pageBuffers.take(views);
  if (buffer === undefined) return;
  const insert = statements(views).insertPending;
  for (const [invocationId, pending] of buffer) {
    if (!pending.persisted) insert.run(invocationId, pending.participant, pending.episode);
  }
};

export const participantHistoryProjection: Projection = {
  name: 'participant-history',
  version: 4,
  setup(views) {
    // No index beside the primary key: a query narrowed to a participant, an episode or an invocation
    // scans these small rows, and its time goes to reading and rendering the streams (docs/decisions.md).
    views.exec(`
      CREATE TABLE IF NOT EXISTS ${HISTORY_TABLE} (
        seq INTEGER PRIMARY KEY,
        participant_address TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        invocation_action_instance_id TEXT NOT NULL,
        closing_revision INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS ${PENDING_TABLE} (
        invocation_action_instance_id TEXT PRIMARY KEY,
        participant_address TEXT NOT NULL,
        episode_id TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
  },
  reset(views) {
    statementsByViews.delete(views);
    pageBuffers.forget(views);
    // The tables of earlier versions go too: version 3 kept each closed invocation's events.
    views.exec(`
      DROP TABLE IF EXISTS participant_history_events;
      DROP TABLE IF EXISTS participant_history_invocations;
      DROP TABLE IF EXISTS participant_history_pending;
      DROP TABLE IF EXISTS ${HISTORY_TABLE};
      DROP TABLE IF EXISTS ${PENDING_TABLE};
    `);
  },
  apply,
  endPage,
  discardPending() {
    pageBuffers.clear();
  },
};
