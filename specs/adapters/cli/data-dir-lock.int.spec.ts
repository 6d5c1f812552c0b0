import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lockDataDir } from '../../../adapters/cli/data-dir-lock';
import { scratchDir } from '../../support/scratch-dir';

const dir = (): string => scratchDir('data-dir-lock');

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

/** Starts `count` processes that each try the lock at one instant, hold it a moment, and report. */
const raceForLock = async (dataDir: string, count: number): Promise<Array<{ ok: boolean; heldFrom: number; heldTo: number }>> => {
  const lockModule = join(__dirname, '..', '..', '..', 'adapters', 'cli', 'data-dir-lock.ts');
  const startAt = Date.now() + 1_500;
  const script = `
    const { lockDataDir } = require(${JSON.stringify(lockModule)});
    while (Date.now() < ${startAt}) {}
    const locked = lockDataDir(${JSON.stringify(dataDir)}, 'raes-tools run');
    const heldFrom = Date.now();
    if (locked.ok) { const until = Date.now() + 150; while (Date.now() < until) {} }
    const heldTo = Date.now();
    process.stdout.write(JSON.stringify({ ok: locked.ok, heldFrom, heldTo }));
    if (locked.ok) locked.release();
  `;
  const { spawn } = await import('node:child_process');
  const runs = Array.from({ length: count }, () =>
    new Promise<{ ok: boolean; heldFrom: number; heldTo: number }>((resolveRun, rejectRun) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('error', rejectRun);
      child.on('exit', (code, signal) => {
        try {
          resolveRun(JSON.parse(out));
        } catch (error) {
          rejectRun(new Error(`a racer printed ${JSON.stringify(out)} and exited with code ${code}, signal ${signal}`));
        }
      });
    }),
  );
  return Promise.all(runs);
};

describe('the writer lock under racing processes', () => {
  it('is held by at most one of many processes started at one instant, over a stale lock too', async () => {
    for (const stale of [false, true, false, true]) {
      const dataDir = dir();
      if (stale) writeFileSync(join(dataDir, 'writer.lock'), JSON.stringify({ pid: deadPid(), command: 'raes-tools run', token: 'gone' }));
      const results = await raceForLock(dataDir, 8);
      const holders = results.filter((result) => result.ok);
      expect(holders.length).toBeGreaterThanOrEqual(1);
      // Whoever held it, no two held it at overlapping times.
      const spans = holders.map((holder) => [holder.heldFrom, holder.heldTo] as const).sort((a, b) => a[0] - b[0]);
      spans.slice(1).forEach((span, index) => expect(span[0]).toBeGreaterThanOrEqual(spans[index]![1]));
      expect(existsSync(join(dataDir, 'writer.lock'))).toBe(false);
    }
  }, 60_000);

  it('reports an empty lock file instead of taking it', () => {
    const dataDir = dir();
    writeFileSync(join(dataDir, 'writer.lock'), '');
    const locked = lockDataDir(dataDir, 'raes-tools recover');
    expect(locked.ok).toBe(false);
    if (!locked.ok) expect(locked.message).toMatch(/empty or unreadable.*delete that file/);
    expect(readFileSync(join(dataDir, 'writer.lock'), 'utf8')).toBe('');
  });

  it('takes over a stale lock after a command was killed holding the takeover guard, and waits for a live holder', async () => {
    const dataDir = dir();
    writeFileSync(join(dataDir, 'writer.lock'), JSON.stringify({ pid: deadPid(), command: 'raes-tools run', token: 't' }));
    const guardHolder = spawn(
      process.execPath,
      ['-e', `const db = new (require('better-sqlite3'))(${JSON.stringify(join(dataDir, 'writer.lock.guard'))}); db.exec('BEGIN EXCLUSIVE'); process.stdout.write('held'); setInterval(() => {}, 1000);`],
      { cwd: join(__dirname, '..', '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => guardHolder.stdout.once('data', () => resolve()));
    const whileHeld = lockDataDir(dataDir, 'raes-tools recover');
    expect(whileHeld).toEqual({ ok: false, message: `${dataDir} is being locked by another command; try again` });
    const killed = new Promise((resolve) => guardHolder.once('exit', resolve));
    guardHolder.kill('SIGKILL');
    await killed;
    const locked = lockDataDir(dataDir, 'raes-tools recover');
    expect(locked.ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dataDir, 'writer.lock'), 'utf8')).pid).toBe(process.pid);
    if (locked.ok) locked.release();
  });
});
