import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore, type SqliteEventStore } from '../../../../adapters/event-store/sqlite/sqlite-event-store';
import { openSqliteOrThrow } from './open-sqlite';

const openReadOnly = (path: string): SqliteEventStore => {
  const opened = openSqliteEventStore({ path, readOnly: true });
  if (opened.kind === 'storage_failure') throw new Error(opened.reason);
  return opened;
};

const eventIds = async (store: SqliteEventStore): Promise<string[]> => {
  const read = await store.readAll();
  if (read.kind !== 'read') throw new Error(read.reason);
  return read.events.map((event) => event.id);
};

describe('the SQLite store opened read-only', () => {
  const dir = (): string => mkdtempSync(join(tmpdir(), 'raes-sqlite-read-only-'));

  it('reads a closed store without creating -wal or -shm beside it, and refuses appends', async () => {
    const path = join(dir(), 'events.sqlite');
    const writer = openSqliteOrThrow(path);
    await writer.append('s', [{ id: 'e1', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
    await writer.close();
    const before = readdirSync(join(path, '..')).sort();

    const reader = openReadOnly(path);
    expect(await eventIds(reader)).toEqual(['e1']);
    expect(await reader.append('s', [{ id: 'e2', type: 'T', data: {} }], { expectedRevision: 'any' })).toMatchObject({
      kind: 'storage_failure',
      reason: expect.stringMatching(/opened read-only/),
    });
    await reader.close();
    expect(readdirSync(join(path, '..')).sort()).toEqual(before);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('sees the commits a live writer holds in its WAL', async () => {
    const path = join(dir(), 'events.sqlite');
    const writer = openSqliteOrThrow(path);
    try {
      await writer.append('s', [{ id: 'e1', type: 'T', data: {} }], { expectedRevision: 'no_stream' });
      expect(existsSync(`${path}-wal`)).toBe(true);
      const reader = openReadOnly(path);
      await writer.append('s', [{ id: 'e2', type: 'T', data: {} }], { expectedRevision: 0n });
      expect(await eventIds(reader)).toEqual(['e1', 'e2']);
      await reader.close();
    } finally {
      await writer.close();
    }
  });

  it('reports a missing file and a file without the store tables instead of creating them', () => {
    const folder = dir();
    expect(openSqliteEventStore({ path: join(folder, 'absent.sqlite'), readOnly: true })).toEqual({
      kind: 'storage_failure',
      reason: expect.stringMatching(/there is no SQLite event store at .*absent\.sqlite': nothing has run there/),
    });
    expect(existsSync(join(folder, 'absent.sqlite'))).toBe(false);
    writeFileSync(join(folder, 'empty.sqlite'), '');
    expect(openSqliteEventStore({ path: join(folder, 'empty.sqlite'), readOnly: true })).toEqual({
      kind: 'storage_failure',
      reason: expect.stringMatching(/holds no event tables: the file was emptied or is not an event store\. Restore it from a backup/),
    });
  });
});
