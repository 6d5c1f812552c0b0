import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST, SCENARIO, cli, json, scratchDir, withoutStack } from './support/cli';

jest.setTimeout(120_000);

describe('a corrupt views.sqlite', () => {
  const dataDir = join(scratchDir('corrupt-views'), 'data');
  const views = join(dataDir, 'views.sqlite');

  beforeAll(() => {
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir).status).toBe(0);
    writeFileSync(views, 'this is not a SQLite database, it is a replaced file '.repeat(100));
    for (const side of ['-wal', '-shm']) rmSync(`${views}${side}`, { force: true });
  });

  it('audit names the corrupt file and the command that rebuilds it', () => {
    const run = cli('audit', '--data-dir', dataDir);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`the views database "${views}" is corrupt (file is not a database)`);
    expect(run.stderr).toContain(`raes-tools projections rebuild --data-dir ${dataDir}`);
    expect(withoutStack(run)).toBe(true);
  });

  it('projections rebuild sets it aside and rebuilds it from the store, after which audit is sound', () => {
    const rebuild = cli('projections', 'rebuild', '--data-dir', dataDir);
    expect(rebuild.status).toBe(0);
    expect(rebuild.stderr).toContain(`moved to ${views}.corrupt`);
    expect(existsSync(`${views}.corrupt`)).toBe(true);
    const audit = cli('audit', '--data-dir', dataDir, '--json');
    expect(audit.status).toBe(0);
    expect(json<{ sound: boolean; invocations: unknown[] }>(audit).invocations.length).toBeGreaterThan(0);
  });
});
