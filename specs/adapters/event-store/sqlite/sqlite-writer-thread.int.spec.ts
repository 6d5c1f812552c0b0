import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { AppendResult, EventToAppend } from '../../../../domain/ports/event-store';
import { openSqliteEventStore } from '../../../../adapters/event-store/sqlite/sqlite-event-store';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { openSqliteOrThrow } from './open-sqlite';

const one = (id: string): EventToAppend[] => [{ id, type: 'T', data: { id } }];
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Row = { stream: string; position: number; recorded_at: number };

describe('sqlite event store writer thread', () => {
  let temp: TempDir;
  let path: string;
  beforeEach(() => {
    temp = makeTempDir('sqlite-writer');
    path = join(temp.path, 'events.sqlite');
  });
  afterEach(() => temp.remove());

  /** Another connection holding the write lock, as another process would. */
  const holdWriteLock = () => {
    const other = new BetterSqlite3(path);
    other.exec('BEGIN IMMEDIATE');
    return () => {
      other.exec('COMMIT');
      other.close();
    };
  };

  it('writes the appends that arrive while a transaction waits or commits in one next transaction', async () => {
    const store = openSqliteOrThrow(path);
    await store.append('warm', one('w'), { expectedRevision: 'no_stream' });
    const release = holdWriteLock();
    const first = store.append('first', one('f'), { expectedRevision: 'no_stream' });
    // Time for the writer to take 'first' and wait for the lock, however busy the machine is.
    await sleep(100);
    const later: Promise<AppendResult>[] = [];
    for (let turn = 0; turn < 10; turn += 1) {
      await nextTurn();
      later.push(store.append(`later-${turn}`, one(`l${turn}`), { expectedRevision: 'no_stream' }));
    }
    await sleep(50);
    release();
    const results = await Promise.all([first, ...later]);
    expect(results.map((result) => result.kind)).toEqual(new Array(11).fill('appended'));
    const rows = store.database
      .prepare("SELECT stream, position, recorded_at FROM events WHERE stream LIKE 'later-%' ORDER BY position")
      .all() as Row[];
    // Ten appends sent in ten turns: one transaction stamps them all alike, at consecutive positions.
    expect(rows.map((row) => row.stream)).toEqual(Array.from({ length: 10 }, (_, turn) => `later-${turn}`));
    expect(new Set(rows.map((row) => row.recorded_at)).size).toBe(1);
    expect(rows[9]!.position - rows[0]!.position).toBe(9);
    await store.close();
  });

  it('fails every append of a transaction that cannot commit with a storage failure, and writes on afterwards', async () => {
    const opened = openSqliteEventStore({ path, busyTimeoutMs: 50 });
    if (opened.kind === 'storage_failure') throw new Error(opened.reason);
    const store = opened;
    const release = holdWriteLock();
    const failed = await Promise.all(
      ['a', 'b', 'c'].map((name) => store.append(`locked-${name}`, one(name), { expectedRevision: 'no_stream' })),
    );
    release();
    for (const result of failed) {
      expect(result).toMatchObject({ kind: 'storage_failure', reason: expect.stringContaining('database is locked') });
    }
    // The streams the failed transaction created are gone with it; appending to them again starts them.
    const retried = await Promise.all(
      ['a', 'b', 'c'].map((name) => store.append(`locked-${name}`, one(name), { expectedRevision: 'no_stream' })),
    );
    expect(retried.map((result) => result.kind)).toEqual(['appended', 'appended', 'appended']);
    const read = await store.readStream('locked-b');
    expect(read.kind === 'read' && read.events.map((event) => [event.id, event.revision])).toEqual([['b', 0n]]);
    await store.close();
  });

  it('keeps a stream created by a failed append usable by the next append in the same transaction', async () => {
    const store = openSqliteOrThrow(path);
    store.database.exec(
      "CREATE TRIGGER refuse AFTER INSERT ON events WHEN NEW.id = 'poison' BEGIN SELECT RAISE(ABORT, 'refused'); END",
    );
    const [poisoned, fine] = await Promise.all([
      store.append('fresh', one('poison'), { expectedRevision: 'no_stream' }),
      store.append('fresh', one('ok'), { expectedRevision: 'no_stream' }),
    ]);
    expect(poisoned.kind).toBe('storage_failure');
    expect(fine).toMatchObject({ kind: 'appended', nextExpectedRevision: 0n });
    const read = await store.readStream('fresh');
    expect(read.kind === 'read' && read.events.map((event) => event.id)).toEqual(['ok']);
    await store.close();
  });

  it('writes the appends still queued when it is closed, and refuses appends after', async () => {
    const store = openSqliteOrThrow(path);
    const pending = Array.from({ length: 50 }, (_, index) =>
      store.append(`closing-${index}`, one(`c${index}`), { expectedRevision: 'no_stream' }),
    );
    await store.close();
    const results = await Promise.all(pending);
    expect(results.every((result) => result.kind === 'appended')).toBe(true);
    expect(await store.append('late', one('x'), { expectedRevision: 'any' })).toMatchObject({ kind: 'storage_failure' });
    const reopened = openSqliteOrThrow(path);
    const all = await reopened.readAll();
    expect(all.kind === 'read' && all.events.length).toBe(50);
    await reopened.close();
  });

  it('fails an append whose data JSON cannot hold with a storage failure, before it reaches the writer', async () => {
    const store = openSqliteOrThrow(path);
    const result = await store.append('s', [{ id: 'a', type: 'T', data: 1n as unknown as number }], { expectedRevision: 'any' });
    expect(result).toMatchObject({ kind: 'storage_failure', reason: expect.stringContaining("appending to 's' failed") });
    await store.close();
  });

  it('writes an in-memory database on the calling thread, with the same results', async () => {
    const opened = openSqliteEventStore({ path: ':memory:' });
    if (opened.kind === 'storage_failure') throw new Error(opened.reason);
    const first = await opened.append('m', one('1'), { expectedRevision: 'no_stream' });
    const conflict = await opened.append('m', one('2'), { expectedRevision: 'no_stream' });
    expect(first).toMatchObject({ kind: 'appended', nextExpectedRevision: 0n });
    expect(conflict).toMatchObject({ kind: 'version_conflict', actual: 0n });
    await opened.close();
  });

  it('moves a file whose index is keyed by stream name to stream ids, keeping positions, revisions and appends', async () => {
    const old = new BetterSqlite3(path);
    old.pragma('journal_mode = WAL');
    old.exec(`
      CREATE TABLE events (position INTEGER PRIMARY KEY, stream TEXT NOT NULL, revision INTEGER NOT NULL,
        id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT, recorded_at INTEGER NOT NULL,
        UNIQUE (stream, revision));
      CREATE TABLE checkpoints (subscriber_id TEXT PRIMARY KEY, position INTEGER NOT NULL);
      INSERT INTO events VALUES (3, 'a', 0, 'a0', 'T', '{"n":0}', NULL, 1), (7, 'b', 0, 'b0', 'T', '{}', '{"by":"x"}', 2),
        (9, 'a', 1, 'a1', 'T', '{"n":1}', NULL, 3);
      INSERT INTO checkpoints VALUES ('view', 7);
    `);
    old.close();
    const store = openSqliteOrThrow(path);
    const a = await store.readStream('a');
    expect(a.kind === 'read' && a.events.map((event) => [event.id, event.revision, event.position, event.data])).toEqual([
      ['a0', 0n, 3n, { n: 0 }],
      ['a1', 1n, 9n, { n: 1 }],
    ]);
    expect(await store.append('a', one('a2'), { expectedRevision: 0n })).toMatchObject({ kind: 'version_conflict', actual: 1n });
    expect(await store.append('a', one('a2'), { expectedRevision: 1n })).toMatchObject({ kind: 'appended', nextExpectedRevision: 2n, lastPosition: 10n });
    expect(await store.append('b', one('b0'), { expectedRevision: 'no_stream' })).toMatchObject({ kind: 'appended', lastPosition: 7n });
    await store.close();
  });
});
