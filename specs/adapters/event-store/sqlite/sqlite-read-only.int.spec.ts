import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { RecordedEvent } from '../../../../domain/ports/event-store';
import { openSqliteEventStore, type SqliteEventStore } from '../../../../adapters/event-store/sqlite/sqlite-event-store';
import { scratchDir } from '../../../support/scratch-dir';
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

/** The folder's files with each one's content hash and modification time: what "never writes" compares. */
const snapshot = (folder: string): Record<string, string> => {
  const files: Record<string, string> = {};
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    files[name] = `${createHash('sha256').update(readFileSync(path)).digest('hex')}:${statSync(path).mtimeMs}`;
  }
  return files;
};

/** Collects what a subscription hands over, and waits (a bounded while) for an event id to arrive. */
const follow = (store: SqliteEventStore) => {
  const seen: RecordedEvent[] = [];
  const subscription = store.subscribe({ handle: async (batch) => void seen.push(...batch.events) });
  const ids = (): string[] => seen.map((event) => event.id);
  const waitFor = async (id: string, ms = 5_000): Promise<string[]> => {
    const until = Date.now() + ms;
    while (!ids().includes(id) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
    return ids();
  };
  return { ids, waitFor, stop: () => subscription.stop() };
};

const append = async (store: SqliteEventStore, id: string, revision: bigint | 'no_stream'): Promise<void> => {
  const appended = await store.append('s', [{ id, type: 'T', data: {} }], { expectedRevision: revision });
  if (appended.kind !== 'appended') throw new Error(`append ${id}: ${JSON.stringify(appended)}`);
};

describe('the SQLite store opened read-only', () => {
  const dir = (): string => scratchDir('sqlite-read-only');

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

  it('opens a closed store in place: nothing is created or written in its folder, however long it reads', async () => {
    const folder = dir();
    const path = join(folder, 'events.sqlite');
    const writer = openSqliteOrThrow(path);
    await append(writer, 'e1', 'no_stream');
    await writer.close();
    // The writer left the file in rollback mode, with no side files.
    const header = new BetterSqlite3(path, { readonly: true });
    expect(header.pragma('journal_mode', { simple: true })).toBe('delete');
    header.close();
    const before = snapshot(folder);
    expect(Object.keys(before)).toEqual(['events.sqlite']);

    const reader = openReadOnly(path);
    expect(reader.database.memory).toBe(false);
    expect(reader.database.readonly).toBe(true);
    const followed = follow(reader);
    expect(await followed.waitFor('e1')).toEqual(['e1']);
    // Several polls of the subscription go by.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(snapshot(folder)).toEqual(before);
    await followed.stop();
    await reader.close();
    expect(snapshot(folder)).toEqual(before);
  });

  it('follows a writer that starts after it opened a closed store, and one that was running before', async () => {
    const path = join(dir(), 'events.sqlite');
    const first = openSqliteOrThrow(path);
    await append(first, 'e1', 'no_stream');
    await first.close();

    const reader = openReadOnly(path);
    const followed = follow(reader);
    expect(await followed.waitFor('e1')).toEqual(['e1']);
    const writer = openSqliteOrThrow(path);
    await append(writer, 'e2', 0n);
    expect(await followed.waitFor('e2')).toEqual(['e1', 'e2']);

    // A second reader opened beside the live writer sees its next events too.
    const beside = openReadOnly(path);
    const besideFollowed = follow(beside);
    await append(writer, 'e3', 1n);
    expect(await besideFollowed.waitFor('e3')).toEqual(['e1', 'e2', 'e3']);
    expect(await followed.waitFor('e3')).toEqual(['e1', 'e2', 'e3']);

    // The writer closes while readers have the file open: it stays in WAL mode for them, still readable.
    await writer.close();
    expect(existsSync(`${path}-wal`)).toBe(true);
    await besideFollowed.stop();
    await beside.close();
    await followed.stop();
    await reader.close();
    const later = openReadOnly(path);
    expect(await eventIds(later)).toEqual(['e1', 'e2', 'e3']);
    await later.close();

    // The next writer to close the file alone leaves it in rollback mode again.
    const last = openSqliteOrThrow(path);
    await append(last, 'e4', 2n);
    await last.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(existsSync(`${path}-shm`)).toBe(false);
  });

  it('reads a WAL file left without its -wal from a copy on disk, creating nothing beside it and removing the copy on close', async () => {
    const folder = dir();
    const path = join(folder, 'events.sqlite');
    const writer = openSqliteOrThrow(path);
    await append(writer, 'e1', 'no_stream');
    await writer.close();
    // As an older version closed it: WAL mode in the header, no side files.
    const raw = new BetterSqlite3(path);
    raw.pragma('journal_mode = WAL');
    raw.close();
    const before = snapshot(folder);
    expect(Object.keys(before)).toEqual(['events.sqlite']);
    const reader = openReadOnly(path);
    expect(await eventIds(reader)).toEqual(['e1']);
    // On disk, not in memory: a long history would otherwise take its whole size in memory, twice.
    expect(reader.database.memory).toBe(false);
    const copy = reader.database.name;
    expect(copy).not.toBe(path);
    expect(existsSync(copy)).toBe(true);
    await reader.close();
    expect(existsSync(dirname(copy))).toBe(false);
    expect(snapshot(folder)).toEqual(before);
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
