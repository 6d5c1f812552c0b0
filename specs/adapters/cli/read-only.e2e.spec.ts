import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, INVOCATION, MANIFEST, ROOT, SCENARIO, cli, scratchDir } from './support/cli';

jest.setTimeout(120_000);

/** Every file of the folder and its sub-folders (the job files in jobs/) with its size, modification time and content hash. */
const snapshot = (dir: string, files: Record<string, string> = {}, prefix = ''): Record<string, string> => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) {
      files[`${prefix}${name}/`] = `${stat.mtimeMs}`;
      snapshot(path, files, `${prefix}${name}/`);
    } else {
      files[`${prefix}${name}`] = `${stat.size} ${stat.mtimeMs} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    }
  }
  return files;
};

/** Files 0444 and folders 0555, from the innermost out. */
const makeReadOnly = (dir: string): void => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) makeReadOnly(path);
    else chmodSync(path, 0o444);
  }
  chmodSync(dir, 0o555);
};

/** Folders writable again, from the outermost in, so that a user other than root can remove them. */
const makeWritable = (dir: string): void => {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) makeWritable(join(dir, entry.name));
};

const readOnlyDirs: string[] = [];
afterAll(() => readOnlyDirs.forEach(makeWritable));

const readOnlyDataDir = (name: string): string => {
  const dataDir = scratchDir(name);
  expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir).status).toBe(0);
  readOnlyDirs.push(dataDir);
  makeReadOnly(dataDir);
  return dataDir;
};

const READ_ONLY_COMMANDS: ReadonlyArray<readonly string[]> = [['audit'], ['audit', '--json'], ['operations', 'get', INVOCATION(1)], ['scheduler', 'list']];

describe('read-only commands on a read-only data dir', () => {
  it.each(READ_ONLY_COMMANDS)('%s works and changes no file (no -wal or -shm either)', (...command) => {
    const dataDir = readOnlyDataDir('read-only');
    const before = snapshot(dataDir);
    const run = cli(...command, '--data-dir', dataDir);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(snapshot(dataDir)).toEqual(before);
  });

  it('audit reports the history it would report on a writable data dir', () => {
    const dataDir = readOnlyDataDir('read-only-audit');
    const run = cli('audit', '--data-dir', dataDir);
    expect(run.stdout).toMatch(/^Tool history: 1 closed invocation, 3 tool actions \(12 history events\), episode \S+$/m);
    expect(run.stdout).toMatch(/^Verification: sound, no findings/m);
  });

  // The specs run as root, whom file modes do not stop: an unprivileged user shows the folder is truly read-only.
  // tsx keeps its compiled modules in memory then, not in a cache folder of that user's in the temp dir that nothing removes.
  const asNobody = (args: readonly string[]): ReturnType<typeof spawnSync> =>
    spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, TSX_DISABLE_CACHE: '1' },
    });
  const nobodyCanRun = process.getuid?.() === 0 && asNobody(['--help']).status === 0;
  (nobodyCanRun ? it : it.skip)('audit as an unprivileged user on a folder it cannot write works; a writer is refused with the reason', () => {
    const dataDir = readOnlyDataDir('read-only-nobody');
    const before = snapshot(dataDir);
    const audit = asNobody(['audit', '--data-dir', dataDir]);
    expect(audit.stderr).toBe('');
    expect(audit.status).toBe(0);
    expect(audit.stdout).toMatch(/^Verification: sound, no findings/m);
    const recover = asNobody(['recover', '--data-dir', dataDir]);
    expect(recover.status).toBe(1);
    expect(recover.stderr).toMatch(/cannot lock the data directory/);
    expect(snapshot(dataDir)).toEqual(before);
  });
});
