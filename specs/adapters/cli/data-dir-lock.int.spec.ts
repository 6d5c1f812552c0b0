import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockDataDir } from '../../../adapters/cli/data-dir-lock';

const dir = (): string => mkdtempSync(join(tmpdir(), 'raes-tools-lock-'));

/** The pid of a process that has ended. */
const deadPid = (): number => {
  const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(ended.stdout);
};

describe('the data directory writer lock', () => {
  it('is held by one command at a time and released on close', () => {
    const dataDir = dir();
    const first = lockDataDir(dataDir, 'raes-tools run');
    expect(first.ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dataDir, 'writer.lock'), 'utf8'))).toMatchObject({ pid: process.pid, command: 'raes-tools run' });
    if (first.ok) first.release();
    expect(existsSync(join(dataDir, 'writer.lock'))).toBe(false);
    const second = lockDataDir(dataDir, 'raes-tools recover');
    expect(second.ok).toBe(true);
    if (second.ok) second.release();
  });

  it('refuses while a live process holds it, naming the holder', () => {
    const dataDir = dir();
    writeFileSync(join(dataDir, 'writer.lock'), JSON.stringify({ pid: process.ppid, command: 'raes-tools run' }));
    const locked = lockDataDir(dataDir, 'raes-tools recover');
    expect(locked).toEqual({
      ok: false,
      message: `${dataDir} is in use by \`raes-tools run\` (pid ${process.ppid}); wait for it to finish, or use another --data-dir`,
    });
    expect(JSON.parse(readFileSync(join(dataDir, 'writer.lock'), 'utf8')).pid).toBe(process.ppid);
  });

  it('takes over a lock left by a process that is gone', () => {
    const dataDir = dir();
    writeFileSync(join(dataDir, 'writer.lock'), JSON.stringify({ pid: deadPid(), command: 'raes-tools run' }));
    const locked = lockDataDir(dataDir, 'raes-tools recover');
    expect(locked.ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dataDir, 'writer.lock'), 'utf8')).pid).toBe(process.pid);
    if (locked.ok) locked.release();
  });
});
