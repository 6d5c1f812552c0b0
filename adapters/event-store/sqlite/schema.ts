import type { Database } from 'better-sqlite3';

/**
 * One row per event. `position` is the global order (the rowid: a single writer at a time assigns it
 * in commit order, so a reader never sees a later position before an earlier one). UNIQUE(stream_id,
 * revision) is the backstop against two writers appending the same revision, and finds re-appended
 * events where a retry would have put them (see reappendStartRevision). The index is keyed by the
 * stream's integer id, not its name: names run to 100+ characters, and an index of names made every
 * group commit dirty several times more index pages. Rows keep the name too, so reads need no join.
 * There is no index on ids: each index costs every commit one more set of dirty pages.
 */
const STREAMS = `
CREATE TABLE IF NOT EXISTS streams (
  id   INTEGER PRIMARY KEY,
  name TEXT    NOT NULL UNIQUE
);`;

const EVENTS = (table: string) => `
CREATE TABLE IF NOT EXISTS ${table} (
  position    INTEGER PRIMARY KEY,
  stream      TEXT    NOT NULL,
  stream_id   INTEGER NOT NULL,
  revision    INTEGER NOT NULL,
  id          TEXT    NOT NULL,
  type        TEXT    NOT NULL,
  data        TEXT    NOT NULL,
  metadata    TEXT,
  recorded_at INTEGER NOT NULL,
  UNIQUE (stream_id, revision)
);`;

const hasColumn = (db: Database, table: string, column: string): boolean =>
  (db.pragma(`table_info(${table})`) as { name: string }[]).some((info) => info.name === column);

const hasTable = (db: Database, table: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;

/**
 * Files written before streams had ids keyed their index by name: their events are copied, in position
 * order with positions kept, into the current table. Checked again inside the write lock, so two
 * processes opening an old file at once migrate it once.
 */
const migrateNamedStreamIndex = (db: Database): void => {
  const needed = () => hasTable(db, 'events') && !hasColumn(db, 'events', 'stream_id');
  if (!needed()) return;
  db.transaction(() => {
    if (!needed()) return;
    db.exec(STREAMS);
    db.exec('INSERT OR IGNORE INTO streams (name) SELECT stream FROM events GROUP BY stream ORDER BY MIN(position)');
    db.exec(EVENTS('events_with_stream_ids'));
    db.exec(
      'INSERT INTO events_with_stream_ids (position, stream, stream_id, revision, id, type, data, metadata, recorded_at) ' +
        'SELECT e.position, e.stream, s.id, e.revision, e.id, e.type, e.data, e.metadata, e.recorded_at ' +
        'FROM events e JOIN streams s ON s.name = e.stream ORDER BY e.position',
    );
    db.exec('DROP TABLE events');
    db.exec('ALTER TABLE events_with_stream_ids RENAME TO events');
  }).immediate();
};

/**
 * WAL lets readers in other processes read while one process writes; synchronous=FULL makes each
 * commit fsync the WAL (NORMAL, the driver's default, can lose the last commits on power loss);
 * busy_timeout makes a second writing process wait for the lock instead of failing at once. The writer
 * thread's connection sets the same with `prepareConnection`.
 */
export const prepareDatabase = (db: Database, busyTimeoutMs: number): void => {
  prepareConnection(db, busyTimeoutMs);
  db.pragma('journal_mode = WAL');
  migrateNamedStreamIndex(db);
  db.exec(STREAMS + EVENTS('events'));
};

/** The per-connection settings (the journal mode is the file's). */
export const prepareConnection = (db: Database, busyTimeoutMs: number): void => {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma('synchronous = FULL');
};

/**
 * The id of a stream, creating its row when missing, for tools that fill a store file with rows
 * directly (benchmarks); the store's own writer keeps its own cache.
 */
export const streamIdLookup = (db: Database): ((stream: string) => number) => {
  const ids = new Map<string, number>();
  const select = db.prepare<[string], number>('SELECT id FROM streams WHERE name = ?').pluck();
  const insert = db.prepare<[string]>('INSERT INTO streams (name) VALUES (?)');
  return (stream) => {
    const known = ids.get(stream);
    if (known !== undefined) return known;
    const id = select.get(stream) ?? Number(insert.run(stream).lastInsertRowid);
    ids.set(stream, id);
    return id;
  };
};
