import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { endProcessTree, processTree } from '../../../adapters/processes/process-tree';
import { sleeping } from './children/sleeping';
import { liveProcesses, until } from '../../support/live-processes';

/**
 * The processes the engine starts may start their own (a wrapper's child): ending one ends its tree,
 * and a tree still running when the engine's process ends, by `process.exit` or by an ending signal,
 * is ended then.
 */

jest.setTimeout(30_000);

const CHILD = join(__dirname, 'children', 'tree-holder.ts');

/** The live sleepers `sleeping(marker)` started. */
const processesWith = (marker: string): number[] => liveProcesses((args) => args[1] === '-e' && args.includes(marker));

const newMarker = (): string => `raes-spec-tree-${randomBytes(6).toString('hex')}`;

describe('ending a process with every process below it', () => {
  it('lists a wrapper shell with its children, and ends them all, not the shell alone', async () => {
    const marker = newMarker();
    const shell = spawn('sh', ['-c', sleeping(marker)], { stdio: 'ignore' });
    const exited = new Promise((resolve) => shell.once('exit', resolve));
    expect(await until(() => processesWith(marker).length === 2)).toBe(true);
    const tree = processTree(shell.pid!);
    expect(tree[0]).toBe(shell.pid);
    expect(tree.slice(1).sort()).toEqual(processesWith(marker).sort());
    endProcessTree(shell.pid!);
    await exited;
    expect(await until(() => processesWith(marker).length === 0)).toBe(true);
  });

  it('lists nothing for a process that is gone', () => {
    expect(processTree(2 ** 22 + 12345)).toEqual([]);
  });

  it.each([
    ['process.exit (a second Ctrl-C in run)', 'exit'],
    ['an ending signal nothing handles (SIGTERM)', 'signal'],
  ])('ends a tree still running when its holder ends by %s', async (_name, how) => {
    const marker = newMarker();
    const holder = spawn(process.execPath, ['--import', 'tsx', CHILD, marker, how], { stdio: ['pipe', 'pipe', 'inherit'] });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => holder.once('exit', (code, signal) => resolve({ code, signal })));
    await new Promise<void>((resolve) => holder.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('started') && resolve()));
    expect(processesWith(marker)).toHaveLength(2);
    if (how === 'exit') holder.stdin!.end();
    else holder.kill('SIGTERM');
    const end = await ended;
    expect(end).toEqual(how === 'exit' ? { code: 130, signal: null } : { code: null, signal: 'SIGTERM' });
    expect(await until(() => processesWith(marker).length === 0)).toBe(true);
  });
});
