import { rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { elapsedMs, summarize, type LatencySummary } from './stats';

/**
 * What better-sqlite3 alone pays for one durable commit: a single-row INSERT in its own transaction,
 * WAL mode, synchronous=FULL.
 */
export const measureSqliteCommitLatency = (dir: string, samples = 300): LatencySummary => {
  const baseline = new SqliteCommitBaseline(dir);
  try {
    return summarize(baseline.commits(samples));
  } finally {
    baseline.close();
  }
};

/**
 * A better-sqlite3 file kept open for a whole figure, so that its commits can be measured in every
 * round beside the figure's own calls, in that round's F: single 1-row commits, and two in turn (the
 * floor of any path that must make two durable commits one after the other).
 */
export class SqliteCommitBaseline {
  private readonly path: string;
  private readonly db: BetterSqlite3.Database;
  private readonly insert: BetterSqlite3.Statement;
  private readonly body = 'x'.repeat(512);

  constructor(dir: string) {
    this.path = join(dir, 'sqlite-commit-baseline.sqlite');
    this.db = new BetterSqlite3(this.path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.exec('CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    this.insert = this.db.prepare('INSERT INTO rows (body) VALUES (?)');
  }

  /** The latency of each of `count` single-row commits, in ms. */
  commits(count: number): number[] {
    return this.timed(count, 1);
  }

  /** The latency of each of `count` pairs of single-row commits made one after the other, in ms. */
  pairsOfCommits(count: number): number[] {
    return this.timed(count, 2);
  }

  close(): void {
    this.db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(this.path + suffix, { force: true });
  }

  /** `count` samples, each the time of `commitsEach` single-row commits in turn. */
  private timed(count: number, commitsEach: number): number[] {
    const latencies: number[] = [];
    for (let index = 0; index < count; index += 1) {
      const start = process.hrtime.bigint();
      for (let commit = 0; commit < commitsEach; commit += 1) this.insert.run(this.body);
      latencies.push(elapsedMs(start));
    }
    return latencies;
  }
}
