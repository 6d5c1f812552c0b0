import { Client } from 'pg';
import { startPostgresServer, type PostgresServer } from '../event-store/postgres/support/postgres-server';
import { MANIFEST, SCENARIO, cli, scratchDir, withoutStack } from './support/cli';

jest.setTimeout(180_000);

const TOOL_2 = 'participant.autonomous-execution.participant-behavior:participant.behavior.participant-agent:1:tool=2';

describe('store identity on PostgreSQL', () => {
  let server: PostgresServer;
  const urlOf = (database: string): string => server.url.replace(/\/postgres$/, `/${database}`);
  const sql = async (database: string, text: string): Promise<unknown[]> => {
    const client = new Client({ connectionString: urlOf(database) });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  const pg = (database: string, ...args: string[]): ReturnType<typeof cli> => cli(...args, '--store', 'postgres', '--postgres-url', urlOf(database));
  let runs = 0;
  /** A run of a new episode (each run its own data dir); the data dir and the episode. */
  const runEpisodeInto = (database: string): { readonly dataDir: string; readonly episode: string } => {
    const dataDir = scratchDir(`pg-${database}`);
    const episode = `episode-${database}-${++runs}`;
    expect(pg(database, 'run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir, '--episode', episode).status).toBe(0);
    return { dataDir, episode };
  };
  const runInto = (database: string): string => runEpisodeInto(database).dataDir;

  beforeAll(async () => {
    server = await startPostgresServer();
    for (const database of ['first', 'second', 'emptied', 'behind', 'untouched']) await sql('postgres', `CREATE DATABASE ${database}`);
  }, 120_000);
  afterAll(async () => server?.stop(), 60_000);

  it('identifies the store once, in its own stream', async () => {
    runInto('first');
    const rows = (await sql('first', "SELECT type, data FROM raes_events WHERE stream = 'store-identity'")) as { type: string; data: string }[];
    expect(rows.map((row) => row.type)).toEqual(['StoreIdentified']);
  });

  it('refuses a data dir pointed at another database', () => {
    const dataDir = runInto('second');
    // 'first' now holds two episodes, one of each data dir: audit takes one at a time.
    const other = runEpisodeInto('first');
    for (const command of [['audit'], ['recover']]) {
      const run = pg('first', ...command, '--data-dir', dataDir);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/the event store on PostgreSQL is store [0-9a-f-]{36}, but .* belongs to store [0-9a-f-]{36}: the store was replaced/);
      expect(run.stderr).toMatch(/--postgres-url/);
      expect(withoutStack(run)).toBe(true);
    }
    const audit = pg('first', 'audit', '--data-dir', other.dataDir, '--episode', other.episode, '--json');
    expect(audit.status).toBe(0);
    const report = JSON.parse(audit.stdout) as { sound: boolean; findings: unknown[]; invocations: { episode_id: string }[] };
    expect(report).toMatchObject({ sound: true, findings: [] });
    expect(new Set(report.invocations.map((invocation) => invocation.episode_id))).toEqual(new Set([other.episode]));
    const unnamed = pg('first', 'audit', '--data-dir', other.dataDir);
    expect(unnamed.status).toBe(2);
    expect(unnamed.stderr).toMatch(/holds 2 episodes: episode-first-1, episode-first-\d+; say which with --episode <id>/);
  });

  it('refuses an emptied store, and run appends nothing to it', async () => {
    const dataDir = runInto('emptied');
    await sql('emptied', 'DELETE FROM raes_events');
    const run = pg('emptied', 'run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/the event store on PostgreSQL is empty, but .* holds the views and job of store/);
    expect(await sql('emptied', 'SELECT position FROM raes_events')).toEqual([]);
  });

  it('refuses a store behind the data dir until the views are rebuilt from it', async () => {
    const dataDir = runInto('behind');
    expect(pg('behind', 'resolve', TOOL_2, '--effect', 'absent', '--evidence', 'ticket-1', '--data-dir', dataDir).status).toBe(0);
    await sql('behind', "DELETE FROM raes_events WHERE position > (SELECT MAX(position) - 2 FROM raes_events)");
    const audit = pg('behind', 'audit', '--data-dir', dataDir);
    expect(audit.status).toBe(1);
    expect(audit.stderr).toMatch(/ends at position \d+, behind position \d+ that .* has seen/);
    expect(pg('behind', 'projections', 'rebuild', '--data-dir', dataDir).status).toBe(0);
    expect(pg('behind', 'audit', '--data-dir', dataDir).status).toBe(0);
  });

  it('refuses to append after a last event that does not decode', async () => {
    const dataDir = runInto('second');
    await sql('second', "UPDATE raes_events SET data = '{not json' WHERE position = (SELECT MAX(position) FROM raes_events)");
    const [{ count: before }] = (await sql('second', 'SELECT COUNT(*)::int AS count FROM raes_events')) as [{ count: number }];
    const run = pg('second', 'recover', '--data-dir', dataDir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/is not readable to its end, so nothing was appended to it: .*its data is not JSON/);
    const [{ count: after }] = (await sql('second', 'SELECT COUNT(*)::int AS count FROM raes_events')) as [{ count: number }];
    expect(after).toBe(before);
  });

  it('read-only commands send only read-only transactions: on a database without the store they create nothing', async () => {
    for (const command of [['audit'], ['scheduler', 'list']]) {
      const run = pg('untouched', ...command, '--data-dir', scratchDir('pg-untouched'));
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/holds no event store tables: nothing has run there, or it was emptied\. Check --postgres-url/);
      expect(withoutStack(run)).toBe(true);
    }
    expect(await sql('untouched', "SELECT to_regclass('raes_events') IS NULL AS absent")).toEqual([{ absent: true }]);
  });
});
