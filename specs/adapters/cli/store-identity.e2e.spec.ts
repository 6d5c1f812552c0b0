import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { MANIFEST, SCENARIO, cli, scratchDir, withoutStack } from './support/cli';

jest.setTimeout(120_000);

const TOOL_2 = 'participant.autonomous-execution.participant-behavior:participant.behavior.participant-agent:1:tool=2';

const ranDataDir = (name: string): string => {
  const dataDir = scratchDir(name);
  const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir);
  expect(run.status).toBe(0);
  return dataDir;
};

const eventCount = (dataDir: string): number => {
  const db = new BetterSqlite3(join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM events').pluck().get() as number;
  } finally {
    db.close();
  }
};

const storeRecord = (dataDir: string): { store_id: string; last_position: string | null } =>
  JSON.parse(readFileSync(join(dataDir, 'store.json'), 'utf8')) as { store_id: string; last_position: string | null };

describe('the data dir records the store it belongs to', () => {
  it('a first run identifies the store and records its id and last position', () => {
    const dataDir = ranDataDir('identified');
    const record = storeRecord(dataDir);
    expect(record.store_id).toMatch(/^[0-9a-f-]{36}$/);
    const db = new BetterSqlite3(join(dataDir, 'events.sqlite'), { readonly: true });
    const identity = db.prepare("SELECT data, position FROM events WHERE stream = 'store-identity'").all() as { data: string; position: number }[];
    const last = db.prepare('SELECT MAX(position) FROM events').pluck().get() as number;
    db.close();
    expect(identity).toHaveLength(1);
    expect(JSON.parse(identity[0]!.data)).toMatchObject({ type: 'StoreIdentified', store_id: record.store_id });
    expect(record.last_position).toBe(String(last));
  });

  it('an emptied store is refused by every command, and run appends nothing to it', () => {
    const dataDir = ranDataDir('emptied');
    writeFileSync(join(dataDir, 'events.sqlite'), '');
    for (const command of [['run', SCENARIO, '--manifest', MANIFEST], ['recover'], ['audit']]) {
      const run = cli(...command, '--data-dir', dataDir);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/emptied/);
      expect(run.stderr).toMatch(/backup/);
      expect(withoutStack(run)).toBe(true);
    }
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir);
    expect(run.stderr).toMatch(/is empty, but .* holds the views and job of store [0-9a-f-]{36}/);
    expect(eventCount(dataDir)).toBe(0);
  });

  it('a store file removed from its data dir is reported by a read-only command as lost, not as never run', () => {
    const dataDir = ranDataDir('removed');
    rmSync(join(dataDir, 'events.sqlite'));
    const run = cli('audit', '--data-dir', dataDir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`belongs to store ${storeRecord(dataDir).store_id}, so the store was removed or emptied: restore it from a backup`));
    expect(existsSync(join(dataDir, 'events.sqlite'))).toBe(false);
  });

  it('a damaged store file is reported as damaged, with the advice to restore it, by readers and writers alike', () => {
    const dataDir = ranDataDir('damaged');
    const storeId = storeRecord(dataDir).store_id;
    // The SQLite header overwritten: the file is no longer a database.
    const file = join(dataDir, 'events.sqlite');
    const bytes = readFileSync(file);
    bytes.fill(0x5a, 0, 100);
    writeFileSync(file, bytes);
    for (const run of [cli('audit', '--data-dir', dataDir), cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir)]) {
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`file is not a database; the store file (store ${storeId}) is damaged, and the history it held cannot be rebuilt from anything else: restore it from a backup`);
      expect(withoutStack(run)).toBe(true);
    }
  });

  it('a store replaced by another one is refused, naming both stores', () => {
    const dataDir = ranDataDir('replaced');
    const other = ranDataDir('replacement');
    const before = eventCount(other);
    copyFileSync(join(other, 'events.sqlite'), join(dataDir, 'events.sqlite'));
    for (const command of [['audit'], ['recover'], ['run', SCENARIO, '--manifest', MANIFEST]]) {
      const run = cli(...command, '--data-dir', dataDir);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`is store ${storeRecord(other).store_id}, but ${dataDir} belongs to store ${storeRecord(dataDir).store_id}: the store was replaced`);
    }
    expect(eventCount(dataDir)).toBe(before);
  });

  it('a store behind what the data dir saw is refused until `projections rebuild` accepts the restored backup', () => {
    const dataDir = ranDataDir('behind');
    const backup = join(scratchDir('backup'), 'events.sqlite');
    copyFileSync(join(dataDir, 'events.sqlite'), backup);
    expect(cli('resolve', TOOL_2, '--effect', 'absent', '--evidence', 'ticket-1', '--data-dir', dataDir).status).toBe(0);
    const seen = storeRecord(dataDir).last_position;
    copyFileSync(backup, join(dataDir, 'events.sqlite'));

    for (const command of [['audit'], ['resolve', TOOL_2, '--effect', 'absent', '--evidence', 'ticket-1'], ['projections', 'rebuild', 'operations']]) {
      const run = cli(...command, '--data-dir', dataDir);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`ends at position \\d+, behind position ${seen} that .* has seen`));
      expect(run.stderr).toContain(`raes-tools projections rebuild --data-dir ${dataDir}`);
    }
    expect(cli('projections', 'rebuild', '--data-dir', dataDir).status).toBe(0);
    expect(cli('audit', '--data-dir', dataDir).status).toBe(0);
    expect(cli('resolve', TOOL_2, '--effect', 'absent', '--evidence', 'ticket-1', '--data-dir', dataDir).status).toBe(0);
  });
});

describe('a writer checks the store is readable to its end before it appends', () => {
  const damageLastEvent = (dataDir: string, type: string, data: string): void => {
    const db = new BetterSqlite3(join(dataDir, 'events.sqlite'));
    db.prepare('UPDATE events SET type = ?, data = ? WHERE position = (SELECT MAX(position) FROM events)').run(type, data);
    db.close();
  };

  it.each([
    ['data that is not JSON', 'SchedulerStopped', '{not json', /its data is not JSON/],
    ['an unknown event type', 'Bogus', '{"type":"Bogus"}', /recorded type 'Bogus'\) is not an event the engine writes/],
  ])('refuses a last event with %s, appending nothing', (_what, type, data, reason) => {
    const dataDir = ranDataDir('corrupt-tail');
    damageLastEvent(dataDir, type, data);
    const before = eventCount(dataDir);
    for (const command of [['recover'], ['run', SCENARIO, '--manifest', MANIFEST], ['resolve', TOOL_2, '--effect', 'absent', '--evidence', 'x']]) {
      const run = cli(...command, '--data-dir', dataDir);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/is not readable to its end, so nothing was appended to it/);
      expect(run.stderr).toMatch(reason);
      expect(run.stderr).toMatch(/Restore the store from a backup/);
      expect(withoutStack(run)).toBe(true);
    }
    expect(eventCount(dataDir)).toBe(before);
  });
});

describe('a writer that folds a stream from the store refuses an event the engine did not write there', () => {
  it.each([
    ['another type tag', 0, (data: Record<string, unknown>) => ({ ...data, type: 'SchedulerRestarted' })],
    ['members it cannot fold', 1, (data: Record<string, unknown>) => ({ ...data, indeterminate_action_ids: 5 })],
  ])('names a scheduler event with %s, with the views file lost', (_what, revision, change) => {
    const dataDir = ranDataDir('foreign-event');
    const db = new BetterSqlite3(join(dataDir, 'events.sqlite'));
    const target = db.prepare("SELECT position, stream, data FROM events WHERE stream LIKE 'scheduler-%' AND revision = ?").get(revision) as { position: number; stream: string; data: string };
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify(change(JSON.parse(target.data) as Record<string, unknown>)), target.position);
    db.close();
    const before = eventCount(dataDir);
    for (const command of [['recover'], ['run', SCENARIO, '--manifest', MANIFEST]]) {
      for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, `views.sqlite${suffix}`), { force: true });
      const run = cli(...command, '--data-dir', dataDir);
      expect([command[0], run.status]).toEqual([command[0], 1]);
      // Named where the engine folds it, or where the views' catch-up meets it: either way as a changed history.
      expect(run.stderr).toMatch(new RegExp(`(the event at position ${target.position} \\(stream '[^']+', revision ${revision}\\) is not an event the engine writes there|failed on the event at position ${target.position}: .*the event store's history was changed)`));
      expect(run.stderr).toMatch(/restore the store from a backup/);
      expect(withoutStack(run)).toBe(true);
    }
    expect(eventCount(dataDir)).toBe(before);
  });
});

it('a data dir from before store identities is adopted by its next writer', () => {
  const dataDir = ranDataDir('legacy');
  const db = new BetterSqlite3(join(dataDir, 'events.sqlite'));
  // A store written before identities was written before hash chains too: no identity, no seal, no link.
  db.prepare("DELETE FROM events WHERE stream IN ('store-identity', 'integrity-seals')").run();
  // A link alone is kept as a BLOB (adapters/event-store/sqlite/metadata-column.js); other metadata as JSON text.
  db.prepare("UPDATE events SET metadata = CASE WHEN typeof(metadata) = 'blob' THEN NULL ELSE json_remove(metadata, '$.raes_chain') END WHERE metadata IS NOT NULL").run();
  // Its events were numbered 1, 2, 3... as SQLite numbers them, with no gap where those streams are now missing.
  db.exec(`CREATE TEMP TABLE written AS SELECT * FROM events;
    DELETE FROM events;
    INSERT INTO events (position, stream, stream_id, revision, id, type, data, metadata, recorded_at)
      SELECT ROW_NUMBER() OVER (ORDER BY position), stream, stream_id, revision, id, type, data, metadata, recorded_at FROM written ORDER BY position;`);
  db.close();
  rmSync(join(dataDir, 'store.json'));
  // Its views never saw the seals just removed: they are rebuilt from the log as it is.
  rmSync(join(dataDir, 'views.sqlite'));
  expect(cli('audit', '--data-dir', dataDir).status).toBe(0);
  expect(existsSync(join(dataDir, 'store.json'))).toBe(false);
  expect(cli('recover', '--data-dir', dataDir).status).toBe(0);
  expect(storeRecord(dataDir).store_id).toMatch(/^[0-9a-f-]{36}$/);
});
