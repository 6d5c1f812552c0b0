import type { PoolClient } from 'pg';

/** The channel each committed append notifies, with the append's last position as payload. */
export const APPENDED_CHANNEL = 'raes_events_appended';

/**
 * The store's tables. `raes_log_head` holds the last global position handed out: every append locks
 * its one row first and updates it in the same transaction, so appends commit one after another and
 * positions become visible in order (a reader never sees position N+1 before N is committed).
 * Data and metadata are kept as the JSON text the engine wrote (not jsonb, which reorders keys).
 */
const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS raes_events (
  position bigint PRIMARY KEY,
  stream text NOT NULL,
  revision bigint NOT NULL,
  id text NOT NULL,
  type text NOT NULL,
  data text NOT NULL,
  metadata text,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT raes_events_stream_revision UNIQUE (stream, revision)
);
CREATE TABLE IF NOT EXISTS raes_log_head (
  id smallint PRIMARY KEY CHECK (id = 1),
  position bigint NOT NULL
);
INSERT INTO raes_log_head (id, position) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;
`;

/** An arbitrary constant naming the advisory lock that serializes schema creation between engines. */
const SCHEMA_LOCK_KEY = 727_001;

/** Creates the tables when missing; engines opening the same database at once take turns. */
export const ensureSchema = async (client: PoolClient): Promise<void> => {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK_KEY]);
    await client.query(SCHEMA_SQL);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
};
