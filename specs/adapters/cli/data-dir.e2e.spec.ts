import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST, SCENARIO, cli, scratchDir, withoutStack } from './support/cli';

jest.setTimeout(90_000);

describe('read-only commands on a data dir that does not exist', () => {
  const readOnly: ReadonlyArray<readonly string[]> = [['audit'], ['operations', 'get', 'some-operation'], ['scheduler', 'list']];

  it.each(readOnly)('%s exits 1 naming the folder and `run`, and creates nothing', (...command) => {
    const missing = join(scratchDir('missing-data-dir'), 'mistyped');
    const run = cli(...command, '--data-dir', missing);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`the data directory "${missing}" does not exist`);
    expect(run.stderr).toMatch(/raes-tools run/);
    expect(existsSync(missing)).toBe(false);
    expect(withoutStack(run)).toBe(true);
  });

  it('audit on a file in place of the data dir is a usage error', () => {
    const file = join(scratchDir('file-data-dir'), 'not-a-dir');
    writeFileSync(file, 'x');
    const run = cli('audit', '--data-dir', file);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/is not a directory/);
  });
});

describe('a data dir that cannot be created', () => {
  it('fails fast under /proc instead of retrying mkdir forever', () => {
    const started = Date.now();
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', '/proc/raes-tools-data');
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/cannot create the data directory "\/proc\/raes-tools-data"/);
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('fails with a message when an ancestor is a file', () => {
    const file = join(scratchDir('file-ancestor'), 'file');
    writeFileSync(file, 'x');
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', join(file, 'data'));
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/cannot create the data directory .*is not a directory/);
  });

  it('creates missing parents for run', () => {
    const nested = join(scratchDir('nested-data-dir'), 'a', 'b');
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', nested);
    expect(run.status).toBe(0);
    expect(existsSync(join(nested, 'events.sqlite'))).toBe(true);
  });
});

describe('a data dir written when it held one episode (its job.json)', () => {
  it.each([[['audit']], [['recover']], [['run', SCENARIO, '--manifest', MANIFEST]], [['scheduler', 'list']]])(
    '%s refuses it, exit 1, saying what to do, and writes nothing there',
    (command) => {
      const dataDir = scratchDir('one-episode-data-dir');
      writeFileSync(join(dataDir, 'job.json'), JSON.stringify({ scenario_path: SCENARIO, manifest_path: MANIFEST, episode_id: 'episode-old' }));
      const run = cli(...command, '--data-dir', dataDir);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`${dataDir} holds job.json: it was written by an earlier version of raes-tools, which kept one episode per data dir`);
      expect(run.stderr).toMatch(/Audit or export it with the version that wrote it, then start a new data dir/);
      expect(withoutStack(run)).toBe(true);
      expect(existsSync(join(dataDir, 'events.sqlite'))).toBe(false);
      expect(existsSync(join(dataDir, 'jobs'))).toBe(false);
    },
  );
});
