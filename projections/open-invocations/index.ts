import type { Database } from 'better-sqlite3';
import type { RecordedEvent } from '../../adapters/event-store/port';
import type { Projection } from '../runner';
import { asInvocationEvent } from '../stored-events';

/** An invocation is open from InvocationOpened until InvocationClosed; recovery after a crash closes these. */
export interface OpenInvocationRow {
  readonly invocation_action_instance_id: string;
  readonly stream: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly opened_at: string;
}

const TABLE = 'open_invocations';

const statements = new WeakMap<Database, { insert: (e: RecordedEvent, row: OpenInvocationRow) => void; remove: (id: string) => void }>();

const prepared = (views: Database) => {
  let found = statements.get(views);
  if (found === undefined) {
    const insert = views.prepare(
      `INSERT OR REPLACE INTO ${TABLE} (invocation_action_instance_id, stream, participant_address, episode_id, opened_at, position) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const remove = views.prepare(`DELETE FROM ${TABLE} WHERE invocation_action_instance_id = ?`);
    found = {
      insert: (event, row) =>
        insert.run(row.invocation_action_instance_id, row.stream, row.participant_address, row.episode_id, row.opened_at, event.position),
      remove: (id) => remove.run(id),
    };
    statements.set(views, found);
  }
  return found;
};

export const openInvocationsProjection: Projection = {
  name: 'open-invocations',
  version: 1,
  setup(views) {
    views.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      invocation_action_instance_id TEXT PRIMARY KEY,
      stream TEXT NOT NULL,
      participant_address TEXT NOT NULL,
      episode_id TEXT NOT NULL,
      opened_at TEXT NOT NULL,
      position INTEGER NOT NULL
    )`);
  },
  reset(views) {
    statements.delete(views);
    views.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  },
  apply(views, event) {
    const invocation = asInvocationEvent(event);
    if (invocation === undefined) return;
    if (invocation.type === 'InvocationOpened') {
      prepared(views).insert(event, {
        invocation_action_instance_id: invocation.invocation_action_instance_id,
        stream: event.stream,
        participant_address: invocation.port_values.participant_address,
        episode_id: invocation.port_values.episode_id,
        opened_at: invocation.at,
      });
    } else if (invocation.type === 'InvocationClosed') {
      prepared(views).remove(invocation.invocation_action_instance_id);
    }
  },
};

/** Invocations opened and not yet closed, oldest first. */
export const listOpenInvocations = (views: Database): readonly OpenInvocationRow[] => {
  const exists = views.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(TABLE);
  if (exists === undefined) return [];
  return views
    .prepare(
      `SELECT invocation_action_instance_id, stream, participant_address, episode_id, opened_at FROM ${TABLE} ORDER BY position`,
    )
    .all() as OpenInvocationRow[];
};
