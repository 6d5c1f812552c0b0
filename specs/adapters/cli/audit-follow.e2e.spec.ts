import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, INVOCATION, MANIFEST, ROOT, SCENARIO, cli, scratchDir } from './support/cli';

/** `audit --follow` in one process prints what a `run` in another settles and closes, until Ctrl-C. */

jest.setTimeout(120_000);

const start = (args: readonly string[]): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } => {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return { child, out: () => out, err: () => err, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
};

const waitFor = async (what: () => boolean, label: string, ms = 60_000): Promise<void> => {
  const until = Date.now() + ms;
  while (!what()) {
    if (Date.now() > until) throw new Error(`never saw ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('raes-tools audit --follow', () => {
  it('prints settled tool actions and closed invocations while a run writes, and exits 0 on SIGINT', async () => {
    const dataDir = scratchDir('audit-follow');
    const run = start(['run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir, '--tool-delay-ms', '1000']);
    // The follower opens the store read-only once the run has created it, and reads the log from its start.
    await waitFor(() => /attempt 1 starts/.test(run.err()), 'the run start');
    const follower = start(['audit', '--follow', '--data-dir', dataDir]);
    await waitFor(() => follower.out().includes(`tool action ${INVOCATION(1)}:tool=1 settled completed`), 'the first tool action settle');
    // Seen while the run still writes: its other calls take a second each.
    expect(run.child.exitCode).toBeNull();
    await waitFor(() => follower.out().includes(`invocation ${INVOCATION(1)} closed: returned`), 'the invocation close');
    expect(follower.out()).toContain(`tool action ${INVOCATION(1)}:tool=2 settled indeterminate`);
    expect(await run.exited).toBe(0);
    expect(follower.err()).toMatch(/following the log/);
    follower.child.kill('SIGINT');
    expect(await follower.exited).toBe(0);
  });

  it('refuses --json with --follow as a usage error', () => {
    const refused = cli('audit', '--follow', '--json', '--data-dir', scratchDir('audit-follow-json'));
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/drop --json/);
  });
});
