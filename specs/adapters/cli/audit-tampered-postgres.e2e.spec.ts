import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { canonicalJson } from '../../../domain/integrity/canonical-json';
import { CHAIN_KEY, linkDigest, linkOf, sha256Hex, storedLink } from '../../../domain/integrity/chain';
import type { JsonObject } from '../../../domain/ports/event-store';
import { startPostgresServer, type PostgresServer } from '../event-store/postgres/support/postgres-server';
import { MANIFEST, ROOT, SCENARIO, cli, json, scratchDir, type Run } from './support/cli';

jest.setTimeout(300_000);

/**
 * A history written by `raes-tools run` on a real PostgreSQL server, then changed in its tables the
 * ways someone with write access to the database could. Each change is found by `audit`, by `verify`
 * over a bundle exported from the changed store, and by the Python checkers (over the stored rows, and
 * over the bundle), each naming where the history breaks.
 */

type Finding = { code: string; position: string; stream: string; revision: string; message: string };
type AuditJson = { sound: boolean; integrity: { chained_events: number; seals: number; unsealed_events: number; findings: Finding[] } };
type Row = { position: string; stream: string; revision: string; type: string; data: string; metadata: string | null };

const HISTORY_CHECKER = join(ROOT, 'clients/python/verify_history.py');
const BUNDLE_CHECKER = join(ROOT, 'clients/python/verify_bundle.py');
const hasPython = spawnSync('python3', ['--version']).status === 0;

const python = (script: string, file: string): Run => {
  const run = spawnSync('python3', [script, file], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
};

/** Changes made through SQL on a copy of the original database. */
type Tampering = (sql: (text: string, values?: readonly unknown[]) => Promise<void>, rows: readonly Row[]) => Promise<void>;

describe('a tampered PostgreSQL history: audit, verify and the Python checkers name the break', () => {
  let server: PostgresServer;
  const root = scratchDir('pg-tampered');
  const original = join(root, 'original');
  const keys = join(root, 'keys');
  let copies = 0;

  const urlOf = (database: string): string => server.url.replace(/\/postgres$/, `/${database}`);
  const withClient = async <T>(database: string, work: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: urlOf(database) });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const rowsOf = (database: string): Promise<Row[]> =>
    withClient(database, async (client) =>
      (await client.query<Row>('SELECT position::text, stream, revision::text, type, data, metadata FROM raes_events ORDER BY raes_events.position')).rows);
  const pg = (database: string, ...args: string[]): Run => cli(...args, '--store', 'postgres', '--postgres-url', urlOf(database));

  /** A copy of the original database (CREATE DATABASE ... TEMPLATE) and of its data dir, changed by `change`. */
  const tampered = async (label: string, change: Tampering): Promise<{ database: string; dataDir: string }> => {
    copies += 1;
    const database = `tampered_${copies}`;
    await withClient('postgres', (client) => client.query(`CREATE DATABASE ${database} TEMPLATE history`));
    const dataDir = join(root, `data-${label}`);
    cpSync(original, dataDir, { recursive: true });
    const rows = await rowsOf(database);
    await withClient(database, async (client) => {
      await client.query('BEGIN');
      await change(async (text, values) => void (await client.query(text, values as unknown[] | undefined)), rows);
      await client.query('COMMIT');
    });
    return { database, dataDir };
  };

  const audit = (database: string, dataDir: string): { status: number | null; report: AuditJson } => {
    const run = pg(database, 'audit', '--data-dir', dataDir, '--json');
    return { status: run.status, report: json<AuditJson>(run) };
  };

  /** The stored rows as the Python history checker reads them: one event per line, data and metadata as stored. */
  const dumped = async (database: string): Promise<string> => {
    const lines = (await rowsOf(database)).map(
      (row) => `{"position":"${row.position}","stream":${JSON.stringify(row.stream)},"revision":"${row.revision}","type":${JSON.stringify(row.type)},"data":${row.data},"metadata":${row.metadata ?? 'null'}}`,
    );
    const file = join(root, `${database}.jsonl`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };

  /** The changed store exported as a signed bundle: the signer signs what the store holds, edits and all. */
  const bundleOf = (database: string, dataDir: string): string => {
    const file = join(root, `${database}.bundle.json`);
    const exported = pg(database, 'export', '--bundle', '--key', join(keys, 'raes-signing-key.pem'), '--data-dir', dataDir, '--out', file);
    expect(exported.stderr).toContain('signed');
    expect(exported.status).toBe(0);
    return file;
  };
  const verify = (file: string): Run => cli('verify', file, '--public-key', join(keys, 'raes-signing-key.pub.pem'));

  /** Every checker over a changed store: the finding it names first, for each. */
  const expectFoundEverywhere = async (database: string, dataDir: string, code: string, position: string, stream: string): Promise<void> => {
    const bundle = bundleOf(database, dataDir);
    const verified = verify(bundle);
    expect(verified.status).toBe(1);
    expect(verified.stderr).toContain(`FAILED ${code}`);
    expect(verified.stderr).toContain(`position ${position} (stream '${stream}'`);
    if (!hasPython) return;
    const history = python(HISTORY_CHECKER, await dumped(database));
    expect(history.status).toBe(1);
    expect(history.stdout.split('\n')[1]).toMatch(new RegExp(`^${code}: the event at position ${position} `));
    const checked = python(BUNDLE_CHECKER, bundle);
    expect(checked.status).toBe(1);
    expect(checked.stdout).toContain(`FAILED ${code}`);
  };

  /** An invocation stream's event in the middle of the history, with at least one event of its stream after it. */
  const middleEvent = (rows: readonly Row[]): Row => {
    const candidates = rows.filter((row) => row.stream.startsWith('invocation-') && rows.some((later) => later.stream === row.stream && BigInt(later.revision) === BigInt(row.revision) + 1n));
    return candidates[Math.floor(candidates.length / 2)]!;
  };
  const firstSeal = (rows: readonly Row[]): Row => rows.find((row) => row.stream === 'integrity-seals')!;

  beforeAll(async () => {
    server = await startPostgresServer();
    await withClient('postgres', (client) => client.query('CREATE DATABASE history'));
    expect(pg('history', 'run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-pg-tampered', '--data-dir', original, '--json').status).toBe(0);
    mkdirSync(keys);
    expect(cli('keys', 'generate', '--out', keys).status).toBe(0);
  }, 180_000);
  afterAll(async () => server?.stop(), 60_000);

  it('finds the untouched history sound everywhere: every event chained and sealed', async () => {
    const { status, report } = audit('history', original);
    expect(status).toBe(0);
    expect(report.integrity.findings).toEqual([]);
    expect(report.integrity.seals).toBeGreaterThanOrEqual(1);
    expect(report.integrity.unsealed_events).toBe(0);
    const bundle = bundleOf('history', original);
    expect(verify(bundle).status).toBe(0);
    if (!hasPython) return;
    expect(python(HISTORY_CHECKER, await dumped('history'))).toMatchObject({ status: 0, stderr: '' });
    expect(python(BUNDLE_CHECKER, bundle)).toMatchObject({ status: 0, stderr: '' });
  });

  it('names the event whose data was edited', async () => {
    let target: Row | undefined;
    const { database, dataDir } = await tampered('edited', async (sql, rows) => {
      target = middleEvent(rows);
      const data = JSON.parse(target.data) as Record<string, unknown>;
      await sql('UPDATE raes_events SET data = $1 WHERE position = $2', [JSON.stringify({ ...data, timestamp: '2020-01-01T00:00:00.000Z' }), target.position]);
    });
    const { status, report } = audit(database, dataDir);
    expect(status).toBe(1);
    expect(report.sound).toBe(false);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'chain_digest_mismatch', position: target!.position, stream: target!.stream });
    await expectFoundEverywhere(database, dataDir, 'chain_digest_mismatch', target!.position, target!.stream);
  });

  it('names the event after a dropped one', async () => {
    let next: Row | undefined;
    const { database, dataDir } = await tampered('dropped', async (sql, rows) => {
      const target = middleEvent(rows);
      next = rows.find((row) => row.stream === target.stream && BigInt(row.revision) === BigInt(target.revision) + 1n);
      await sql('DELETE FROM raes_events WHERE position = $1', [target.position]);
    });
    // The views saw the dropped event: the report cannot be rendered, and the error says why.
    const run = pg(database, 'audit', '--data-dir', dataDir, '--json');
    expect(run.status).toBe(1);
    const findings = run.stderr.split('\n').filter((line) => /^ {2}\w+: /.test(line));
    expect(findings[0]).toContain(`revision_gap: the event at position ${next!.position} (stream '${next!.stream}', revision ${next!.revision}) follows revision ${BigInt(next!.revision) - 2n}`);
    expect(findings.some((line) => line.startsWith('  seal_mismatch: '))).toBe(true);
    // The views saw the dropped event too: exporting a bundle refuses as well, naming the stream.
    const refused = pg(database, 'export', '--bundle', '--key', join(keys, 'raes-signing-key.pem'), '--data-dir', dataDir, '--out', join(root, 'refused.json'));
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`of stream '${next!.stream}'`);
    if (!hasPython) return;
    const history = python(HISTORY_CHECKER, await dumped(database));
    expect(history.status).toBe(1);
    expect(history.stdout.split('\n')[1]).toMatch(new RegExp(`^revision_gap: the event at position ${next!.position} `));
  });

  it('names the first of two events of a stream whose order was swapped', async () => {
    let first: Row | undefined;
    const { database, dataDir } = await tampered('reordered', async (sql, rows) => {
      first = middleEvent(rows);
      const second = rows.find((row) => row.stream === first!.stream && BigInt(row.revision) === BigInt(first!.revision) + 1n)!;
      const put = 'UPDATE raes_events SET type = $1, data = $2, metadata = $3 WHERE position = $4';
      await sql(put, [second.type, second.data, second.metadata, first!.position]);
      await sql(put, [first!.type, first!.data, first!.metadata, second.position]);
    });
    const { status, report } = audit(database, dataDir);
    expect(status).toBe(1);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'chain_digest_mismatch', position: first!.position, stream: first!.stream });
    await expectFoundEverywhere(database, dataDir, 'chain_digest_mismatch', first!.position, first!.stream);
  });

  it('names the seal over a stream that was removed whole', async () => {
    let seal: Row | undefined;
    const { database, dataDir } = await tampered('removed', async (sql, rows) => {
      const removed = rows.find((row) => row.stream.startsWith('scheduler-'))!.stream;
      seal = firstSeal(rows);
      await sql('DELETE FROM raes_events WHERE stream = $1', [removed]);
    });
    const { status, report } = audit(database, dataDir);
    expect(status).toBe(1);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'seal_mismatch', position: seal!.position, stream: 'integrity-seals' });
    expect(report.integrity.findings[0]!.message).toMatch(/linked events where it counted/);
    await expectFoundEverywhere(database, dataDir, 'seal_mismatch', seal!.position, 'integrity-seals');
  });

  it('names the seal over events of two streams whose global order was swapped', async () => {
    let seal: Row | undefined;
    const { database, dataDir } = await tampered('global-order', async (sql, rows) => {
      seal = firstSeal(rows);
      const [a, b] = [rows[1]!, rows.slice(2).find((row) => row.stream !== rows[1]!.stream && BigInt(row.position) < BigInt(seal!.position))!];
      const move = 'UPDATE raes_events SET position = $1 WHERE position = $2';
      await sql(move, [-1, a.position]);
      await sql(move, [a.position, b.position]);
      await sql(move, [b.position, -1]);
    });
    const { status, report } = audit(database, dataDir);
    expect(status).toBe(1);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'seal_mismatch', position: seal!.position });
    expect(report.integrity.findings[0]!.message).toMatch(/in another order/);
    await expectFoundEverywhere(database, dataDir, 'seal_mismatch', seal!.position, 'integrity-seals');
  });

  it('names a seal whose rolling digest was changed, by its own link', async () => {
    let seal: Row | undefined;
    const { database, dataDir } = await tampered('seal-edited', async (sql, rows) => {
      seal = firstSeal(rows);
      const data = JSON.parse(seal.data) as { rolling_digest: string };
      await sql('UPDATE raes_events SET data = $1 WHERE position = $2', [JSON.stringify({ ...data, rolling_digest: sha256Hex('another history') }), seal.position]);
    });
    const { status, report } = audit(database, dataDir);
    expect(status).toBe(1);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'chain_digest_mismatch', position: seal!.position, stream: 'integrity-seals' });
    await expectFoundEverywhere(database, dataDir, 'chain_digest_mismatch', seal!.position, 'integrity-seals');
  });

  it('names a seal rewritten consistently with the public rule, by the events it no longer covers', async () => {
    let seal: Row | undefined;
    const { database, dataDir } = await tampered('seal-rewritten', async (sql, rows) => {
      seal = firstSeal(rows);
      const data = { ...(JSON.parse(seal.data) as Record<string, unknown>), rolling_digest: sha256Hex('another history') };
      const metadata = JSON.parse(seal.metadata!) as JsonObject;
      const link = linkOf(metadata)!;
      // The seal's own link recomputed as docs/integrity.md says, so its stream's chain holds at the seal.
      const digest = linkDigest(link.v, link.previous, seal.stream, Number(seal.revision), seal.type, canonicalJson(data as JsonObject));
      await sql('UPDATE raes_events SET data = $1, metadata = $2 WHERE position = $3', [
        JSON.stringify(data),
        JSON.stringify({ ...metadata, [CHAIN_KEY]: storedLink({ ...link, digest }) }),
        seal.position,
      ]);
    });
    const { status, report } = audit(database, dataDir);
    expect(status).toBe(1);
    expect(report.integrity.findings[0]).toMatchObject({ code: 'seal_mismatch', position: seal!.position, stream: 'integrity-seals' });
    await expectFoundEverywhere(database, dataDir, 'seal_mismatch', seal!.position, 'integrity-seals');
  });
});
