import { rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { elapsedMs, summarize, type LatencySummary } from './stats';

/**
 * What better-sqlite3 alone pays for one durable commit: a single-row INSERT in its own transaction,
 * WAL mode, synchronous=FULL.
 */
export const measureSqliteCommitLatency = (dir: string, samples = 300): LatencySummary => {
  const path = join(dir, 'sqlite-baseline.sqlite');
  const db = new BetterSqlite3(path);
  const latencies: number[] = [];
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
    const body = 'x'.repeat(512);
    for (let index = 0; index < samples; index += 1) {
      const start = process.hrtime.bigint();
      insert.run(body);
      latencies.push(elapsedMs(start));
    }
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  }
  return summarize(latencies);
};
