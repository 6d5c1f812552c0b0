import { statSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { EventToAppend } from '../../../../domain/ports/event-store';
import { prepareDatabase, streamIdLookup } from '../../../../adapters/event-store/sqlite/schema';
import { WalCheckpoints } from '../../../../adapters/event-store/sqlite/wal-checkpoints';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { waitFor } from '../support/wait-for';
import { openSqliteOrThrow } from './open-sqlite';

const MB = 1024 * 1024;
/** 2 KB of data an event: 40 MB of rows is 20,000 events. */
const PAYLOAD = 'x'.repeat(2048);
const event = (id: string): EventToAppend[] => [{ id, type: 'Filled', data: { id, payload: PAYLOAD } }];
const sizeOf = (path: string): number => statSync(path).size;

/**
 * The writer thread commits without SQLite's automatic checkpoint: it has the WAL copied into the
 * database file by a thread of its own and starts the WAL over (wal-checkpoints.js). Without those
 * checkpoints the WAL would hold every row written while the store is open.
 */
describe('sqlite event store checkpoints', () => {
  let temp: TempDir;
  let path: string;
  beforeEach(() => {
    temp = makeTempDir('sqlite-checkpoints');
    path = join(temp.path, 'events.sqlite');
  });
  afterEach(() => temp.remove());

  it('copies the WAL into the database file while group commits go on, and keeps the WAL bounded', async () => {
    const store = openSqliteOrThrow(path);
    const writers = 32;
    const appendsEach = 625; // 20,000 events, about 40 MB of rows
    await Promise.all(
      Array.from({ length: writers }, async (_, writer) => {
        for (let index = 0; index < appendsEach; index += 1) {
          const result = await store.append(`stream-${writer}-${index % 8}`, event(`${writer}-${index}`), { expectedRevision: 'any' });
          if (result.kind !== 'appended') throw new Error(JSON.stringify(result));
        }
      }),
    );
    const wal = sizeOf(`${path}-wal`);
    const database = sizeOf(path);
    // Still open: what the database file holds was copied by checkpoints, not by the close.
    expect(database).toBeGreaterThan(30 * MB);
    expect(wal).toBeLessThan(24 * MB);
    const reader = new BetterSqlite3(path, { readonly: true });
    expect(reader.prepare('SELECT COUNT(*) FROM events').pluck().get()).toBe(writers * appendsEach);
    reader.close();
    await store.close();
  });

  /** Appends one at a time to one stream, each committed on the calling thread; `between` runs after each. */
  const appendAlone = async (store: ReturnType<typeof openSqliteOrThrow>, appends: number, between: () => Promise<void> | void): Promise<void> => {
    for (let index = 0; index < appends; index += 1) {
      const result = await store.append('lone', event(`lone-${index}`), { expectedRevision: 'any' });
      if (result.kind !== 'appended') throw new Error(JSON.stringify(result));
      await between();
    }
  };

  it('keeps the WAL bounded under lone appends, committed on the calling thread', async () => {
    const store = openSqliteOrThrow(path);
    // A caller between two calls lets the event loop turn, as one waiting for its tool does.
    await appendAlone(store, 3000, () => new Promise<void>((resolve) => setImmediate(resolve)));
    expect(sizeOf(path)).toBeGreaterThan(3 * MB);
    expect(sizeOf(`${path}-wal`)).toBeLessThan(12 * MB);
    await store.close();
  });

  it('keeps the WAL bounded under lone appends made without the event loop ever turning', async () => {
    const store = openSqliteOrThrow(path);
    await appendAlone(store, 3000, () => undefined);
    // 3,000 commits write about 48 MB of WAL.
    expect(sizeOf(`${path}-wal`)).toBeLessThan(24 * MB);
    await store.close();
  });

  it('copies what another connection left in the WAL as soon as it opens, before anything is committed', async () => {
    const created = openSqliteOrThrow(path);
    await created.close();
    // Another process's commits, never checkpointed (a killed engine leaves its WAL so).
    const other = new BetterSqlite3(path);
    other.pragma('journal_mode = WAL');
    other.pragma('wal_autocheckpoint = 0');
    const streamId = streamIdLookup(other)('left');
    const insert = other.prepare('INSERT INTO events (stream, stream_id, revision, id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, NULL, 0)');
    other.transaction(() => {
      for (let revision = 0; revision < 3000; revision += 1) insert.run('left', streamId, revision, `left-${revision}`, 'Filled', JSON.stringify({ payload: PAYLOAD }));
    })();
    const before = sizeOf(path);
    expect(sizeOf(`${path}-wal`)).toBeGreaterThan(6 * MB);
    const store = openSqliteOrThrow(path);
    await waitFor('the WAL copied into the database file', () => sizeOf(path) > before + 6 * MB);
    expect((await store.readStream('left')).kind).toBe('read');
    await store.close();
    other.close();
  });

  it('leaves no WAL behind when the store closes', async () => {
    const store = openSqliteOrThrow(path);
    await Promise.all(Array.from({ length: 200 }, (_, index) => store.append(`s-${index}`, event(`e-${index}`), { expectedRevision: 'no_stream' })));
    await store.close();
    const reader = new BetterSqlite3(path, { readonly: true });
    expect(reader.prepare('SELECT COUNT(*) FROM events').pluck().get()).toBe(200);
    reader.close();
    expect(() => statSync(`${path}-wal`)).toThrow();
  });
});

/**
 * Without a checkpoint thread (it could not open the file, or it failed since), the writer's connection
 * copies the WAL itself at the same points: the WAL stays bounded all the same, and closing does not wait
 * for a thread that is gone.
 */
describe('sqlite WAL checkpoints without their thread', () => {
  let temp: TempDir;
  beforeEach(() => (temp = makeTempDir('sqlite-checkpoints-fallback')));
  afterEach(() => temp.remove());

  const writerConnection = (path: string): BetterSqlite3.Database => {
    const db = new BetterSqlite3(path);
    prepareDatabase(db, 5000);
    return db;
  };

  it('has the writer connection copy the WAL when the checkpoint thread cannot open the file', async () => {
    const path = join(temp.path, 'events.sqlite');
    const db = writerConnection(path);
    // The thread is given a folder to open, which fails; the writer's connection is the store's file.
    const checkpoints = new WalCheckpoints(db, temp.path, 100);
    const streamId = streamIdLookup(db)('filled');
    const insert = db.prepare('INSERT INTO events (stream, stream_id, revision, id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, NULL, 0)');
    const data = JSON.stringify({ payload: PAYLOAD });
    let revision = 0;
    const deadline = Date.now() + 20_000;
    // Until 6 MB of rows were copied into the file: only the writer's own checkpoints can copy them.
    while (sizeOf(path) < 6 * MB && Date.now() < deadline) {
      db.transaction(() => {
        for (let row = 0; row < 8; row += 1, revision += 1) insert.run('filled', streamId, revision, `e-${revision}`, 'Filled', data);
      })();
      checkpoints.committed(8 * data.length, 1);
      // The writer thread's event loop turns between two group commits, and the thread's answers arrive then.
      await new Promise<void>((resolve) => setTimeout(resolve, 1));
    }
    expect(sizeOf(path)).toBeGreaterThan(6 * MB);
    // The WAL starts over after each copy: it holds a few commits' pages, not every page since the start.
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as [{ log: number }];
    expect(log).toBeLessThan(300);
    // Rows of 2 KB take a page each: without restarts the WAL would hold well over a thousand pages.
    expect(revision).toBeGreaterThan(1000);
    await checkpoints.close();
    db.close();
  }, 30_000);

  it('closes at once when the checkpoint thread could not open the file', async () => {
    const path = join(temp.path, 'events.sqlite');
    const db = writerConnection(path);
    const checkpoints = new WalCheckpoints(db, temp.path);
    await expect(checkpoints.close()).resolves.toBeUndefined();
    db.close();
  });
});
