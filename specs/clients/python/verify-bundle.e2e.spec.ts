import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST, ROOT, SCENARIO, cli, scratchDir } from '../../adapters/cli/support/cli';

jest.setTimeout(180_000);

/**
 * The Python bundle checker (standard library only) over a real signed bundle: it recomputes the
 * chains, heads and content digest of docs/integrity.md without this code. Runs where python3 is.
 */

const CHECKER = join(ROOT, 'clients/python/verify_bundle.py');
const hasPython = spawnSync('python3', ['--version']).status === 0;

type Json = Record<string, unknown>;

const check = (file: string) => {
  const run = spawnSync('python3', [CHECKER, file], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
};

(hasPython ? describe : describe.skip)('clients/python/verify_bundle.py', () => {
  const dir = scratchDir('python-bundle');
  const bundleFile = join(dir, 'history.bundle.json');
  let bundle: Json;

  const tampered = (name: string, change: (copy: Json) => void): string => {
    const copy = JSON.parse(JSON.stringify(bundle)) as Json;
    change(copy);
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(copy));
    return file;
  };

  beforeAll(() => {
    const dataDir = join(dir, 'data');
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-python-bundle', '--data-dir', dataDir, '--json').status).toBe(0);
    mkdirSync(join(dir, 'keys'));
    expect(cli('keys', 'generate', '--out', join(dir, 'keys')).status).toBe(0);
    expect(cli('export', '--bundle', '--key', join(dir, 'keys/raes-signing-key.pem'), '--data-dir', dataDir, '--out', bundleFile).status).toBe(0);
    bundle = JSON.parse(readFileSync(bundleFile, 'utf8')) as Json;
  });

  it('finds the bundle sound and says it did not check the signature', () => {
    const result = check(bundleFile);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`sound: ${(bundle.events as unknown[]).length} events`);
    expect(result.stdout).toContain('signature is not checked');
  });

  it('names an edited event, a dropped event and an edited history document', () => {
    const edited = tampered('edited', (copy) => {
      const event = (copy.events as { type: string; data: Json }[]).find((candidate) => candidate.type === 'ToolActionAdmitted')!;
      event.data = JSON.parse(JSON.stringify(event.data).replace('call-', 'Call-'));
    });
    expect(check(edited)).toMatchObject({ status: 1, stdout: expect.stringContaining('FAILED chain_digest_mismatch') });
    const dropped = tampered('dropped', (copy) => {
      const events = copy.events as { revision: string }[];
      events.splice(events.findIndex((event) => event.revision === '1'), 1);
    });
    expect(check(dropped)).toMatchObject({ status: 1, stdout: expect.stringContaining('FAILED revision_gap') });
    const history = tampered('history', (copy) => {
      ((copy.history as Json).operation_statuses as Json[])[0]!.state = 'failed';
    });
    expect(check(history)).toMatchObject({ status: 1, stdout: expect.stringContaining('FAILED content_digest_mismatch') });
  });

  it('gives a usage error exit 2', () => {
    expect(check(join(dir, 'missing.json')).status).toBe(2);
  });
});
