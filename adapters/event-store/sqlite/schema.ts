import type { Database } from 'better-sqlite3';

/**
 * One row per event. `position` is the global order (the rowid: a single writer at a time assigns it
 * in commit order, so a reader never sees a later position before an earlier one). UNIQUE(stream,
 * revision) is the backstop against two writers appending the same revision, and finds re-appended
 * events where a retry would have put them (see reappendStartRevision). There is no index on ids:
 * each index costs every commit one more set of dirty pages, and the WAL write is the group commit's cost.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position    INTEGER PRIMARY KEY,
  stream      TEXT    NOT NULL,
  revision    INTEGER NOT NULL,
  id          TEXT    NOT NULL,
  type        TEXT    NOT NULL,
  data        TEXT    NOT NULL,
  metadata    TEXT,
  recorded_at INTEGER NOT NULL,
  UNIQUE (stream, revision)
);
CREATE TABLE IF NOT EXISTS checkpoints (
  subscriber_id TEXT    PRIMARY KEY,
  position      INTEGER NOT NULL
);
`;

/**
 * WAL lets readers in other processes read while one process writes; synchronous=FULL makes each
 * commit fsync the WAL (NORMAL, the driver's default, can lose the last commits on power loss);
 * busy_timeout makes a second writing process wait for the lock instead of failing at once.
 */
export const prepareDatabase = (db: Database, busyTimeoutMs: number): void => {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(SCHEMA);
};
