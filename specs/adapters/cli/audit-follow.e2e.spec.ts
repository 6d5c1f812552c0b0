import { rmSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { INVOCATION, MANIFEST, SCENARIO, cli, scratchDir } from './support/cli';
import { HELD_TOOL_HARNESS, heldTools, startCli, waitFor, type StartedCli } from './support/started-cli';

/** `audit --follow` in one process prints what a `run` in another settles and closes, until Ctrl-C. */

jest.setTimeout(120_000);

describe('raes-tools audit --follow', () => {
  it('prints settled tool actions and closed invocations while a run writes, and exits 0 on SIGINT', async () => {
    const dataDir = scratchDir('audit-follow');
    // Each tool call of the run stays open until the spec releases it, so the run is known to be writing.
    const held = heldTools();
    const run = startCli(['run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir, '--harness', HELD_TOOL_HARNESS], held.env);
    const started: StartedCli[] = [run];
    try {
      // The follower opens the store read-only once the run has created it, and reads the log from its start.
      await waitFor(() => /attempt 1 starts/.test(run.err()), 'the run start');
      const follower = startCli(['audit', '--follow', '--data-dir', dataDir]);
      started.push(follower);
      await waitFor(() => /following the log/.test(follower.err()), 'the follower start');
      held.release(1, 1);
      await waitFor(() => follower.out().includes(`tool action ${INVOCATION(1)}:tool=1 settled completed (succeeded)`), 'the first tool action settle');
      // Seen while the run still writes: its second call is held open, so the invocation is not closed.
      expect(run.child.exitCode).toBeNull();
      expect(follower.out()).not.toContain(`invocation ${INVOCATION(1)} closed`);
      expect(follower.out()).not.toContain(`${INVOCATION(1)}:tool=2`);
      held.release(1, 2);
      await waitFor(() => follower.out().includes(`invocation ${INVOCATION(1)} closed: returned succeeded`), 'the invocation close');
      expect(follower.out()).toContain(`tool action ${INVOCATION(1)}:tool=2 settled indeterminate (timeout)`);
      // The indeterminate action stops the scheduler: the run ends, and the follower keeps following.
      expect(await run.exited).toBe(0);
      expect(follower.child.exitCode).toBeNull();
      follower.child.kill('SIGINT');
      expect(await follower.exited).toBe(0);
      expect(follower.out().split('\n').filter((line) => line.includes(`${INVOCATION(1)}:tool=1 settled`))).toHaveLength(1);
    } finally {
      for (const child of started) child.child.kill('SIGKILL');
    }
  });

  it('stops with exit 1, saying so, when the store file it follows is removed and made again', async () => {
    const dataDir = scratchDir('audit-follow-replaced');
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir).status).toBe(0);
    const follower = startCli(['audit', '--follow', '--data-dir', dataDir]);
    try {
      await waitFor(() => follower.out().includes(`invocation ${INVOCATION(1)} closed`), 'the history followed');
      rmSync(dataDir, { recursive: true, force: true });
      expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir).status).toBe(0);
      expect(await follower.exited).toBe(1);
      expect(follower.err()).toContain(`the event store file ${join(dataDir, 'events.sqlite')} was`);
      expect(follower.err()).toContain('run `raes-tools audit --follow` again to follow the store there now');
    } finally {
      follower.child.kill('SIGKILL');
    }
  });

  it('names an event whose members are of other kinds than the engine writes, and follows on', async () => {
    const dataDir = scratchDir('audit-follow-changed');
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir).status).toBe(0);
    const db = new BetterSqlite3(join(dataDir, 'events.sqlite'));
    const settled = db.prepare("SELECT position, data FROM events WHERE type = 'ToolActionSettled' ORDER BY position").get() as { position: number; data: string };
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify({ ...(JSON.parse(settled.data) as object), action_result: null, reason: null }), settled.position);
    db.close();
    const follower = startCli(['audit', '--follow', '--data-dir', dataDir]);
    try {
      await waitFor(() => follower.out().includes(`invocation ${INVOCATION(1)} closed`), 'the history followed');
      expect(follower.out()).toContain(`event at position ${settled.position} (stream invocation-`);
      expect(follower.out()).toContain('is not one the engine writes: run `raes-tools audit` to see where the history was changed');
      expect(follower.child.exitCode).toBeNull();
      follower.child.kill('SIGINT');
      expect(await follower.exited).toBe(0);
      expect(follower.err()).not.toMatch(/internal error|\n\s+at /);
    } finally {
      follower.child.kill('SIGKILL');
    }
  });

  it('refuses --json with --follow as a usage error', () => {
    const refused = cli('audit', '--follow', '--json', '--data-dir', scratchDir('audit-follow-json'));
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/drop --json/);
  });
});
