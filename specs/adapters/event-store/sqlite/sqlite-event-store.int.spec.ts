import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../../../adapters/event-store/sqlite/sqlite-event-store';
import { describeEventStoreContract } from '../support/event-store-contract';
import { makeTempDir, type TempDir } from '../support/temp-dir';
import { openSqliteOrThrow } from './open-sqlite';

let dir: TempDir | undefined;
const file = () => join(dir!.path, 'nested', 'events.sqlite');

describeEventStoreContract('sqlite', {
  open: async () => {
    dir = makeTempDir('sqlite-contract');
    return openSqliteOrThrow(file());
  },
  reopen: async (previous) => {
    await previous.close();
    return openSqliteOrThrow(file());
  },
  dispose: async () => dir?.remove(),
});

describe('sqlite event store', () => {
  let temp: TempDir;
  beforeEach(() => {
    temp = makeTempDir('sqlite');
  });
  afterEach(() => temp.remove());

  it('runs in WAL mode with synchronous=FULL and a busy timeout', async () => {
    const store = openSqliteOrThrow(join(temp.path, 'events.sqlite'));
    expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal');
    // 2 is FULL
    expect(store.database.pragma('synchronous', { simple: true })).toBe(2);
    expect(store.database.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    await store.close();
  });

  it('rejects a second row at the same stream revision in the schema itself', async () => {
    const store = openSqliteOrThrow(join(temp.path, 'events.sqlite'));
    await store.append('s', [{ id: 'a', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    expect(() =>
      store.database
        .prepare(
          "INSERT INTO events (stream, stream_id, revision, id, type, data, recorded_at) " +
            "SELECT 's', id, 0, 'b', 'T', '{}', 0 FROM streams WHERE name = 's'",
        )
        .run(),
    ).toThrow(/UNIQUE/);
    await store.close();
  });

  it('commits appends made in the same turn in one transaction', async () => {
    const store = openSqliteOrThrow(join(temp.path, 'events.sqlite'));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        store.append(`batch-${index}`, [{ id: 'x', type: 'T', data: {} }], { expectedRevision: 'no_stream' }),
      ),
    );
    expect(results.every((r) => r.kind === 'appended')).toBe(true);
    // A flush stamps its transaction once: one timestamp and consecutive positions mean one transaction.
    const rows = store.database
      .prepare("SELECT position, recorded_at FROM events WHERE stream LIKE 'batch-%' ORDER BY position")
      .all() as { position: number; recorded_at: number }[];
    expect(new Set(rows.map((r) => r.recorded_at)).size).toBe(1);
    expect(rows[rows.length - 1]!.position - rows[0]!.position).toBe(19);
    await store.close();
  });

  it('reads a stream backwards down the stream index, with no sort, and a closed store as a storage failure', async () => {
    const store = openSqliteOrThrow(join(temp.path, 'events.sqlite'));
    try {
      await store.append('s', [{ id: 'a', type: 'T', data: {} }, { id: 'b', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
      const source = store['selectStreamBackwards'].source;
      const plan = (store.database.prepare(`EXPLAIN QUERY PLAN ${source}`).all('s', 1, 1) as { detail: string }[]).map((step) => step.detail);
      expect(plan).toContainEqual(expect.stringMatching(/^SEARCH events USING INDEX \S+ \(stream_id=\? AND revision<\?\)$/));
      expect(plan.filter((detail) => /TEMP B-TREE|SCAN events/.test(detail))).toEqual([]);
    } finally {
      await store.close();
    }
    expect(await store.readStreamBackwards('s', { maxCount: 1 })).toMatchObject({ kind: 'storage_failure', reason: expect.stringContaining("reading stream 's' backwards failed") });
  });

  it('reports a storage failure, not an exception, and writes no part of the failed append', async () => {
    const store = openSqliteOrThrow(join(temp.path, 'events.sqlite'));
    // A trigger in the file (not TEMP): the writer thread's connection must see it.
    store.database.exec(
      "CREATE TRIGGER refuse AFTER INSERT ON events WHEN NEW.id = 'poison' BEGIN SELECT RAISE(ABORT, 'disk says no'); END",
    );
    const [broken, fine] = await Promise.all([
      store.append('broken', [{ id: 'a', type: 'T', data: {} }, { id: 'poison', type: 'T', data: {} }], { expectedRevision: 'any' }),
      store.append('fine', [{ id: 'b', type: 'T', data: {} }], { expectedRevision: 'any' }),
    ]);
    expect(broken).toMatchObject({ kind: 'storage_failure', reason: expect.stringContaining('disk says no') });
    expect(fine.kind).toBe('appended');
    expect(await store.readStream('broken')).toEqual({ kind: 'read', events: [] });
    await store.close();
  });

  it('after a failed append inside a batch, writes the batch again with the others committed and revisions right', async () => {
    const store = openSqliteOrThrow(join(temp.path, 'events.sqlite'));
    await store.append('kept', [{ id: 'k0', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    store.database.exec(
      "CREATE TRIGGER refuse AFTER INSERT ON events WHEN NEW.id = 'poison' BEGIN SELECT RAISE(ABORT, 'disk says no'); END",
    );
    const [kept, broken, fresh] = await Promise.all([
      store.append('kept', [{ id: 'k1', type: 'T', data: {} }], { expectedRevision: 0n }),
      store.append('broken', [{ id: 'poison', type: 'T', data: {} }], { expectedRevision: 'no_stream' }),
      store.append('fresh', [{ id: 'f0', type: 'T', data: {} }], { expectedRevision: 'no_stream' }),
    ]);
    expect(kept).toMatchObject({ kind: 'appended', nextExpectedRevision: 1n });
    expect(broken).toMatchObject({ kind: 'storage_failure', reason: expect.stringContaining('disk says no') });
    expect(fresh).toMatchObject({ kind: 'appended', nextExpectedRevision: 0n });
    // The rolled-back first try left no revision behind: the next appends expect what was committed.
    expect(await store.append('kept', [{ id: 'k2', type: 'T', data: {} }], { expectedRevision: 1n })).toMatchObject({ kind: 'appended' });
    expect(await store.append('broken', [{ id: 'b0', type: 'T', data: {} }], { expectedRevision: 'no_stream' })).toMatchObject({
      kind: 'appended',
    });
    await store.close();
  });

  it('sees appends another connection committed to a stream it appended to (its revision cache is emptied)', async () => {
    const path = join(temp.path, 'events.sqlite');
    const first = openSqliteOrThrow(path);
    const second = openSqliteOrThrow(path);
    await first.append('shared', [{ id: 'a', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    await second.append('shared', [{ id: 'b', type: 'T', data: {} }], { expectedRevision: 0n });
    expect(await first.append('shared', [{ id: 'c', type: 'T', data: {} }], { expectedRevision: 0n })).toMatchObject({
      kind: 'version_conflict',
      actual: 1n,
    });
    expect(await first.append('shared', [{ id: 'c', type: 'T', data: {} }], { expectedRevision: 1n })).toMatchObject({
      kind: 'appended',
      nextExpectedRevision: 2n,
    });
    await second.close();
    await first.close();
  });

  it('fails to open with a storage failure naming the path', () => {
    const blocked = join(temp.path, 'file');
    writeFileSync(blocked, 'not a folder');
    const opened = openSqliteEventStore({ path: join(blocked, 'events.sqlite') });
    expect(opened).toMatchObject({ kind: 'storage_failure', reason: expect.stringContaining(blocked) });
  });
});
