import { rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { prepareDatabase } from '../../adapters/event-store/sqlite/schema';

/**
 * The ceiling of a group-committed store on this disk: better-sqlite3 alone writing rows the size of
 * tool-action events into the event store's own schema and pragmas (WAL, synchronous=FULL), `perCommit`
 * rows per transaction from as many streams, each with the revision look-up and savepoint an append has.
 */
export const measureSqliteBatchRate = (dir: string, options: { perCommit: number; rowBytes: number; seconds: number }): number => {
  const path = join(dir, 'sqlite-batch-baseline.sqlite');
  const db = new BetterSqlite3(path);
  try {
    prepareDatabase(db, 5000);
    const data = JSON.stringify({ body: 'x'.repeat(options.rowBytes) });
    const insert = db.prepare('INSERT INTO events (stream, revision, id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, NULL, ?)');
    const lastRevision = db.prepare('SELECT MAX(revision) FROM events WHERE stream = ?').pluck();
    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    const savepoint = db.prepare('SAVEPOINT append');
    const release = db.prepare('RELEASE append');
    const streams = Array.from({ length: options.perCommit }, (_, i) => `invocation-participant.autonomous-execution.bench:participant.behavior.agent-${i}:1`);
    const revisions = new Array<number>(options.perCommit).fill(0);
    const start = process.hrtime.bigint();
    const deadline = Date.now() + options.seconds * 1000;
    let rows = 0;
    while (Date.now() < deadline) {
      begin.run();
      for (let i = 0; i < options.perCommit; i++) {
        const stream = streams[i]!;
        savepoint.run();
        lastRevision.get(stream);
        const revision = revisions[i]!;
        revisions[i] = revision + 1;
        insert.run(stream, revision, `${stream}@${revision}:0123456789abcdef`, 'ToolActionAdmitted', data, Date.now());
        release.run();
        rows++;
      }
      commit.run();
    }
    return rows / (Number(process.hrtime.bigint() - start) / 1e9);
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  }
};
