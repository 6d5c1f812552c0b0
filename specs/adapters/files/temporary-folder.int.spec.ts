import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../../support/scratch-dir';
import { waitFor } from '../event-store/support/wait-for';

/** A process's temporary folders go when it ends, however it ends short of SIGKILL. */

jest.setTimeout(60_000);

const CHILD = join(__dirname, 'children/temporary-folder-child.ts');

type Held = { readonly child: ChildProcess; readonly out: () => string; readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }> };

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.stdin!.end();
});

const hold = (how: 'exit' | 'wait' | 'own-handler'): Held => {
  // Its temp dir is a scratch dir of this spec: what the child leaves by mistake goes with the spec's folders.
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, how], { env: { ...process.env, TMPDIR: scratchDir('temporary-folders') }, stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  return { child, out: () => out, ended: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))) };
};

const folderOf = async (held: Held): Promise<string> => {
  await waitFor('the child to print its folder', () => held.out().includes('\n'), 30_000);
  return held.out().split('\n')[0]!;
};

describe('temporary folders', () => {
  it('are removed at process.exit, which runs no finally block', async () => {
    const held = hold('exit');
    const folder = await folderOf(held);
    expect(await held.ended).toEqual({ code: 3, signal: null });
    expect(existsSync(folder)).toBe(false);
  });

  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('are removed on %s that nothing else handles, and the process still ends by it', async (signal) => {
    const held = hold('wait');
    const folder = await folderOf(held);
    expect(existsSync(folder)).toBe(true);
    held.child.kill(signal);
    expect(await held.ended).toEqual({ code: null, signal });
    expect(existsSync(folder)).toBe(false);
  });

  it('stay while a handler of its own decides when the process ends, and go when it does', async () => {
    const held = hold('own-handler');
    const folder = await folderOf(held);
    held.child.kill('SIGINT');
    await waitFor('the child to handle SIGINT', () => held.out().includes('interrupted'), 30_000);
    expect(existsSync(folder)).toBe(true);
    held.child.stdin!.end();
    expect(await held.ended).toEqual({ code: 0, signal: null });
    expect(existsSync(folder)).toBe(false);
  });
});
