import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { AppendResult, EventToAppend } from '../../../../domain/ports/event-store';
import { openSqliteEventStore, type SqliteEventStore } from '../../../../adapters/event-store/sqlite/sqlite-event-store';
import { makeTempDir, type TempDir } from '../support/temp-dir';

/**
 * An append with nobody to share its commit is committed on the calling thread (calling-thread-commit.ts):
 * it settles before the event loop turns, where an append through the writer thread needs at least the
 * turn its outcome message arrives in.
 */

const one = (id: string): EventToAppend[] => [{ id, type: 'T', data: { id } }];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The append's result, and whether it settled before a callback queued for the loop's next turn ran. */
const appendTimed = async (store: SqliteEventStore, stream: string, events: EventToAppend[], expected: bigint | 'no_stream'): Promise<{ result: AppendResult; withinTurn: boolean }> => {
  let turned = false;
  const probe = setImmediate(() => (turned = true));
  const result = await store.append(stream, events, { expectedRevision: expected });
  clearImmediate(probe);
  return { result, withinTurn: !turned };
};

describe('sqlite event store: lone appends', () => {
  let temp: TempDir;
  let path: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    temp = makeTempDir('sqlite-lone');
    path = join(temp.path, 'events.sqlite');
    const opened = openSqliteEventStore({ path, busyTimeoutMs: 3000 });
    if (opened.kind === 'storage_failure') throw new Error(opened.reason);
    store = opened;
  });
  afterEach(async () => {
    await store.close();
    temp.remove();
  });

  it('commits a lone caller\'s appends one after another without waiting for a turn of the event loop', async () => {
    const appended: { result: AppendResult; withinTurn: boolean }[] = [];
    appended.push(await appendTimed(store, 'invocation-1', one('a'), 'no_stream'));
    for (let revision = 0; revision < 4; revision += 1) appended.push(await appendTimed(store, 'invocation-1', one(`b${revision}`), BigInt(revision)));
    expect(appended.map((append) => append.result.kind)).toEqual(new Array(5).fill('appended'));
    expect(appended.every((append) => append.withinTurn)).toBe(true);
    const read = await store.readStream('invocation-1');
    expect(read.kind === 'read' && read.events.map((event) => event.id)).toEqual(['a', 'b0', 'b1', 'b2', 'b3']);
    // A reader on another connection sees them: they are committed, not held by this connection.
    const other = new BetterSqlite3(path, { readonly: true });
    expect(other.prepare("SELECT COUNT(*) FROM events WHERE stream = 'invocation-1'").pluck().get()).toBe(5);
    other.close();
  });

  it('sends concurrent callers to the writer thread together, which sees the revisions the calling thread committed', async () => {
    // The writer thread learns the stream's revision 0 (the first append of the turn, to another stream, is the lone one).
    await store.append('warm', one('w'), { expectedRevision: 'no_stream' });
    const viaThread = await appendTimed(store, 'shared', one('s0'), 'no_stream');
    expect(viaThread).toEqual({ result: expect.objectContaining({ kind: 'appended', nextExpectedRevision: 0n }), withinTurn: false });
    await sleep(5);
    // Revision 1 on the calling thread...
    const lone = await appendTimed(store, 'shared', one('s1'), 0n);
    expect(lone).toEqual({ result: expect.objectContaining({ kind: 'appended', nextExpectedRevision: 1n }), withinTurn: true });
    // ...then, in the same turn, two callers: the second stream of the turn and everything after it go to the writer thread.
    const [other, next, stale] = await Promise.all([
      store.append('other', one('o'), { expectedRevision: 'no_stream' }),
      store.append('shared', one('s2'), { expectedRevision: 1n }),
      store.append('shared', one('s2-stale'), { expectedRevision: 0n }),
    ]);
    expect(other.kind).toBe('appended');
    expect(next).toEqual(expect.objectContaining({ kind: 'appended', nextExpectedRevision: 2n }));
    expect(stale).toEqual(expect.objectContaining({ kind: 'version_conflict', actual: 2n }));
  });

  it('leaves an append to the writer thread while another connection holds the write lock, without blocking the calling thread', async () => {
    await store.append('warm', one('w'), { expectedRevision: 'no_stream' });
    await sleep(5);
    const holder = new BetterSqlite3(path);
    holder.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    let settled = false;
    const pending = store.append('waiting', one('x'), { expectedRevision: 'no_stream' }).then((result) => {
      settled = true;
      return result;
    });
    await sleep(0);
    // The calling thread tried the lock without waiting (busy timeout 3 s): the loop turned at once.
    expect(Date.now() - started).toBeLessThan(1000);
    await sleep(100);
    expect(settled).toBe(false);
    holder.exec('COMMIT');
    holder.close();
    expect((await pending).kind).toBe('appended');
  });
});
