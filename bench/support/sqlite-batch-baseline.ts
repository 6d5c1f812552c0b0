import { rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { prepareDatabase, streamIdLookup } from '../../adapters/event-store/sqlite/schema';

/** About the events of one invocation: its opening, 16 tool actions of 3 events, its closing. */
const STREAM_LENGTH = 52;

/**
 * The ceiling of a group-committed store on this disk: better-sqlite3 alone writing rows the size of
 * tool-action events into the event store's own schema and pragmas (WAL, synchronous=FULL), `perCommit`
 * rows per transaction from as many streams, each with the revision look-up and savepoint an append has.
 * The streams are renewed as often as invocations end, their rows created in the transaction as the
 * store creates them. No JavaScript of the engine runs: this is the rate of the disk and
 * SQLite alone, on one thread.
 */
export const measureSqliteBatchRate = (dir: string, options: { perCommit: number; rowBytes: number; seconds: number }): number => {
  const path = join(dir, 'sqlite-batch-baseline.sqlite');
  const db = new BetterSqlite3(path);
  try {
    prepareDatabase(db, 5000);
    const data = JSON.stringify({ body: 'x'.repeat(options.rowBytes) });
    const insert = db.prepare(
      'INSERT INTO events (stream, stream_id, revision, id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)',
    );
    const lastRevision = db.prepare('SELECT MAX(revision) FROM events WHERE stream_id = ?').pluck();
    const streamId = streamIdLookup(db);
    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    const savepoint = db.prepare('SAVEPOINT append');
    const release = db.prepare('RELEASE append');
    // Streams are renewed every STREAM_LENGTH events, as invocations end and new ones start.
    let generation = 0;
    let streams: string[] = [];
    let ids: number[] = [];
    const revisions = new Array<number>(options.perCommit).fill(0);
    const renewStreams = () => {
      generation += 1;
      streams = Array.from({ length: options.perCommit }, (_, i) => `invocation-participant.autonomous-execution.bench:participant.behavior.agent-${i}:${generation}`);
      ids = streams.map(streamId);
      revisions.fill(0);
    };
    renewStreams();
    const start = process.hrtime.bigint();
    const deadline = Date.now() + options.seconds * 1000;
    let rows = 0;
    while (Date.now() < deadline) {
      begin.run();
      if (revisions[0]! >= STREAM_LENGTH) renewStreams();
      for (let i = 0; i < options.perCommit; i++) {
        const stream = streams[i]!;
        const id = ids[i]!;
        savepoint.run();
        lastRevision.get(id);
        const revision = revisions[i]!;
        revisions[i] = revision + 1;
        insert.run(stream, id, revision, `${stream}@${revision}:0123456789abcdef`, 'ToolActionAdmitted', data, Date.now());
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
