import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ChainedEventStore } from '../../../adapters/event-store/chained-event-store';
import { MemoryEventStore } from '../../../adapters/event-store/memory/memory-event-store';
import { openSqliteEventStore, type SqliteEventStore } from '../../../adapters/event-store/sqlite/sqlite-event-store';
import { auditIntegrity } from '../../../adapters/cli/audit-integrity';
import { passIntegrity, type PassIntegrity } from '../../../adapters/cli/pass-integrity';
import type { IntegrityReport } from '../../../domain/integrity/verify';
import type { EventStore, StorageFailure } from '../../../domain/ports/event-store';
import { openSqliteOrThrow } from '../event-store/sqlite/open-sqlite';
import { scratchDir } from '../../support/scratch-dir';

jest.setTimeout(60_000);

/**
 * The audit's integrity check on a thread of its own (pass-integrity.ts), over real SQLite files: it
 * reports what the check on the pass's own thread reports, for a history as written and for histories
 * changed the ways audit-tampered.e2e.spec.ts changes them, and it covers exactly the events the pass read.
 */

const STREAMS = 12;
const ROUNDS = 15;
const SEAL_EVERY = 25;

const folder = scratchDir('pass-integrity');
const original = join(folder, 'original.sqlite');

/** Events in turns across the streams, through the chain and its seals, as an engine writer leaves them. */
const writeHistory = async (path: string, streams: number, rounds: number, from = 0): Promise<void> => {
  const store = new ChainedEventStore(openSqliteOrThrow(path), SEAL_EVERY, true);
  for (let round = from; round < from + rounds; round += 1) {
    for (let stream = 0; stream < streams; stream += 1) {
      const events = [{ id: `e-${stream}-${round}`, type: 'Happened', data: { stream, round, note: `round ${round} of stream ${stream}` } }];
      const appended = await store.append(`stream-${stream}`, events, { expectedRevision: round === 0 ? 'no_stream' : BigInt(round - 1) });
      if (appended.kind !== 'appended') throw new Error(`writing the history failed: ${appended.kind}`);
    }
  }
  await store.close();
};

const openReading = (path: string): SqliteEventStore => {
  const opened = openSqliteEventStore({ path, readOnly: true });
  if (opened.kind === 'storage_failure') throw new Error(opened.reason);
  return opened;
};

/** What the audit's pass does with the check: every event it reads, in pages, then the report. */
const pass = async (
  store: EventStore,
  integrity: PassIntegrity,
  /** Runs once the pass has read its last page, before it asks for the report. */
  beforeReport: () => Promise<void> = async () => {},
  page = 40,
): Promise<{ readonly report: IntegrityReport | StorageFailure; readonly read: number }> => {
  let after: bigint | undefined;
  let read = 0;
  for (;;) {
    const events = await store.readAll({ ...(after === undefined ? {} : { after }), maxCount: page });
    if (events.kind !== 'read') throw new Error(events.reason);
    for (const event of events.events) integrity.see(event);
    read += events.events.length;
    if (events.events.length < page) break;
    after = events.events[events.events.length - 1]!.position;
  }
  await beforeReport();
  return { report: await integrity.report(), read };
};

type Row = { position: number; stream: string; revision: number; type: string; data: string; metadata: Buffer | null };

const tampered = (label: string, change: (db: BetterSqlite3.Database, rows: readonly Row[]) => void): string => {
  const path = join(folder, `${label}.sqlite`);
  copyFileSync(original, path);
  const db = new BetterSqlite3(path);
  change(db, db.prepare('SELECT position, stream, revision, type, data, metadata FROM events ORDER BY position').all() as Row[]);
  db.close();
  return path;
};

const middleOf = (rows: readonly Row[], stream: string): Row => rows.filter((row) => row.stream === stream)[Math.floor(ROUNDS / 2)]!;

describe("the audit's integrity check on a thread of its own", () => {
  beforeAll(async () => {
    await writeHistory(original, STREAMS, ROUNDS);
  });

  const histories: Array<[string, () => string]> = [
    ['as written', () => original],
    [
      'with an event whose data was edited',
      () =>
        tampered('edited', (db, rows) => {
          db.prepare('UPDATE events SET data = ? WHERE position = ?').run('{"stream":3,"round":99}', middleOf(rows, 'stream-3').position);
        }),
    ],
    ['with an event dropped', () => tampered('dropped', (db, rows) => void db.prepare('DELETE FROM events WHERE position = ?').run(middleOf(rows, 'stream-5').position))],
    [
      'with two events of a stream swapped',
      () =>
        tampered('swapped', (db, rows) => {
          const first = middleOf(rows, 'stream-7');
          const second = rows.find((row) => row.stream === 'stream-7' && row.revision === first.revision + 1)!;
          const put = db.prepare('UPDATE events SET type = ?, data = ?, metadata = ? WHERE position = ?');
          put.run(second.type, second.data, second.metadata, first.position);
          put.run(first.type, first.data, first.metadata, second.position);
        }),
    ],
    ['with a stream removed whole', () => tampered('removed', (db) => void db.prepare("DELETE FROM events WHERE stream = 'stream-2'").run())],
    ['with metadata that is not JSON', () => tampered('unreadable', (db, rows) => void db.prepare('UPDATE events SET metadata = ? WHERE position = ?').run('{oops', middleOf(rows, 'stream-9').position))],
  ];

  it.each(histories)('reports a history %s as the check on the pass thread does', async (_label, history) => {
    const store = openReading(history());
    try {
      const alone = await auditIntegrity(store);
      const integrity = await passIntegrity(store, { threadFromEvents: 1 });
      const { report } = await pass(store, integrity);
      expect(integrity.checkedBy).toEqual({ kind: 'integrity_thread' });
      expect(report).toEqual(alone);
      if (history() !== original) expect((report as IntegrityReport).findings.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('covers the events appended while the pass read, and none appended after it ended', async () => {
    const path = join(folder, 'growing.sqlite');
    await writeHistory(path, 4, 10);
    const reader = openReading(path);
    try {
      const integrity = await passIntegrity(reader, { threadFromEvents: 1 });
      // Appended once the thread began: beyond the store's end it verifies first, read by the pass.
      await writeHistory(path, 4, 5, 10);
      // Appended after the pass's last read: the thread, reading on, stops where the pass did.
      const { report, read } = await pass(reader, integrity, () => writeHistory(path, 4, 3, 15));
      expect(integrity.checkedBy).toEqual({ kind: 'integrity_thread' });
      expect(report).toMatchObject({ events: read, findings: [] });
      expect(read).toBeGreaterThan(4 * 10);
      expect((await auditIntegrity(reader)) as IntegrityReport).toMatchObject({ events: read + 4 * 3 + 1 });
    } finally {
      await reader.close();
    }
  });

  it('checks on the pass thread, reading the store again, when the thread fails', async () => {
    const failing = join(folder, 'failing-thread.js');
    writeFileSync(failing, "throw new Error('the thread could not start');\n");
    const store = openReading(tampered('dropped-again', (db, rows) => void db.prepare('DELETE FROM events WHERE position = ?').run(middleOf(rows, 'stream-1').position)));
    try {
      const integrity = await passIntegrity(store, { threadFromEvents: 1, threadEntry: failing });
      const { report } = await pass(store, integrity);
      expect(integrity.checkedBy).toEqual({ kind: 'pass_after_thread_failed', reason: expect.stringContaining('the thread could not start') });
      expect(report).toEqual(await auditIntegrity(store));
      expect((report as IntegrityReport).findings.map((finding) => finding.code)).toContain('revision_gap');
    } finally {
      await store.close();
    }
  });

  it('checks a store below the threshold, and any store not in a SQLite file, on the pass thread', async () => {
    const store = openReading(original);
    try {
      const integrity = await passIntegrity(store);
      const { report } = await pass(store, integrity);
      expect(integrity.checkedBy).toEqual({ kind: 'pass' });
      expect(report).toEqual(await auditIntegrity(store));
    } finally {
      await store.close();
    }
    const memory = new MemoryEventStore();
    await memory.append('stream-0', [{ id: 'only', type: 'Happened', data: {} }], { expectedRevision: 'no_stream' });
    const inMemory = await passIntegrity(memory, { threadFromEvents: 1 });
    expect((await pass(memory, inMemory)).report).toMatchObject({ events: 1 });
    expect(inMemory.checkedBy).toEqual({ kind: 'pass' });
  });
});
