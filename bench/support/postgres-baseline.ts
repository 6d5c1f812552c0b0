import type { Pool } from 'pg';

/**
 * The raw PostgreSQL baseline of the throughput figure: the rows of `writers` concurrent tool actions
 * inserted by pg alone, committed the way the engine's append queue commits them at best (one
 * transaction for the admitted + dispatched rows of every writer, then one for their settled rows),
 * one transaction at a time, into a plain table: no revision check, no log-head lock, no engine.
 */
export const RAW_TABLE_SQL =
  'CREATE TABLE IF NOT EXISTS bench_raw_events (position bigint PRIMARY KEY, stream text NOT NULL, revision bigint NOT NULL, data text NOT NULL)';

/** Tool actions per second the raw inserts reach in `seconds`. */
export const measureRawPostgresActions = async (
  pool: Pool,
  options: { readonly writers: number; readonly rowBytes: number; readonly seconds: number; readonly round: number },
): Promise<number> => {
  const data = JSON.stringify({ padding: 'x'.repeat(Math.max(0, options.rowBytes - 14)) });
  const client = await pool.connect();
  try {
    const last = await client.query<{ position: string | null }>('SELECT max(position) AS position FROM bench_raw_events');
    let position = Number(last.rows[0]!.position ?? 0);
    const commit = async (revision: number, rowsPerWriter: number): Promise<void> => {
      const positions: number[] = [];
      const streams: string[] = [];
      const revisions: number[] = [];
      for (let writer = 0; writer < options.writers; writer++) {
        for (let row = 0; row < rowsPerWriter; row++) {
          positions.push(++position);
          streams.push(`raw-${options.round}-${writer}`);
          revisions.push(revision + row);
        }
      }
      await client.query('BEGIN');
      await client.query(
        'INSERT INTO bench_raw_events (position, stream, revision, data) SELECT p, s, r, $4 FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS t(p, s, r)',
        [positions, streams, revisions, data],
      );
      await client.query('COMMIT');
    };
    const deadline = Date.now() + options.seconds * 1000;
    const start = process.hrtime.bigint();
    let actions = 0;
    for (let revision = 0; Date.now() < deadline; revision += 3) {
      await commit(revision, 2);
      await commit(revision + 2, 1);
      actions += options.writers;
    }
    return actions / (Number(process.hrtime.bigint() - start) / 1e9);
  } finally {
    client.release();
  }
};
