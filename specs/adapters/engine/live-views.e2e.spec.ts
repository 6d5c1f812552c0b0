import { spawn } from 'node:child_process';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createEngine, type Engine } from '../../../adapters/engine/create-engine';
import { HarnessRuntime, toolActionRequestFor } from '../../../domain/application';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import type { ToolCallOutcome } from '../../../examples/harness/call-tool';
import { scratchDir } from '../../support/scratch-dir';
import { waitFor } from '../event-store/support/wait-for';

/**
 * While an engine runs, the views follow the log: a closed invocation reaches the participant history
 * view and its tool action the operations view without `audit` or `projections rebuild`; an engine
 * opened again on the same data directory resumes the views from their checkpoints.
 */

jest.setTimeout(120_000);

const ROOT = join(__dirname, '../../..');
const SCENARIO = join(ROOT, 'examples/portal-probe.scenario.yaml');
const MANIFEST = join(ROOT, 'examples/portal-probe.manifest.json');

type HistoryRow = { invocation_action_instance_id: string };

describe('live views of a running engine (createEngine on SQLite)', () => {
  let dataDir: string;
  let engine: Engine | undefined;
  const admitted: string[] = [];
  const returned: string[] = [];

  const runtime = () =>
    new HarnessRuntime(async (request, _snapshot, port) => {
      if (port !== undefined) {
        const answer = await port.admit(toolActionRequestFor(port, `call-${returned.length}`, PORTAL_CLIENT));
        if (answer.admitted) admitted.push(answer.action_instance_id);
      }
      returned.push(request.action_instance_id);
      // A succeeded probe keeps the scheduler running (a failed one stops it by the failure policy).
      return probeResult(request, [{ kind: 'completed', succeeded: true } as ToolCallOutcome]);
    });

  /** A separate connection, as another process would read the views. */
  const readViews = <T>(query: string): T[] => {
    const db = new BetterSqlite3(join(dataDir, 'views.sqlite'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(query).all() as T[];
    } catch {
      return [];
    } finally {
      db.close();
    }
  };
  const history = (): string[] =>
    readViews<HistoryRow>('SELECT invocation_action_instance_id FROM participant_history_index ORDER BY seq').map((row) => row.invocation_action_instance_id);

  const advanceUntilReturned = async (count: number): Promise<void> => {
    for (let tick = 0; returned.length < count; tick++) {
      if (tick > 50) throw new Error(`no invocation returned after ${tick} ticks`);
      await engine!.advance(1);
    }
  };

  beforeAll(() => {
    dataDir = scratchDir('live-views');
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('shows a closed invocation in the history view, and its operation status, while the engine runs', async () => {
    engine = await createEngine({ scenarioPath: SCENARIO, manifestPath: MANIFEST, runtime: runtime(), dataDir, episodeId: 'episode-live' });
    await advanceUntilReturned(1);
    await waitFor('the closed invocation in the history view', () => history().includes(returned[0]!), 30_000);
    if (admitted.length > 0) {
      await waitFor(
        'the tool action settled in the operations view',
        () => readViews<{ state: string }>(`SELECT state FROM operations WHERE operation_id = '${admitted[0]}'`)[0]?.state === 'settled',
        30_000,
      );
    }
  });

  it('resumes from the views checkpoints after the engine is opened again, with no duplicate rows', async () => {
    await engine!.close();
    engine = undefined;
    const before = history();
    engine = await createEngine({ scenarioPath: SCENARIO, manifestPath: MANIFEST, runtime: runtime(), dataDir, episodeId: 'episode-live' });
    await advanceUntilReturned(returned.length + 1);
    const latest = returned[returned.length - 1]!;
    await waitFor('the next closed invocation in the history view', () => history().includes(latest), 30_000);
    const after = history();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(new Set(after).size).toBe(after.length);
    expect(after).toEqual(expect.arrayContaining(returned));
  });

  it('leaves views that resume from their checkpoints after the engine is killed, with no duplicate rows', async () => {
    await engine?.close();
    engine = undefined;
    const killedDir = scratchDir('live-views-killed');
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'children/live-views-engine-child.ts'), killedDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const exited = new Promise<void>((resolveExit) => child.on('exit', () => resolveExit()));
    const saved = dataDir;
    dataDir = killedDir;
    try {
      await waitFor('the child engine to run an invocation', () => /^R \S+$/m.test(out) || child.exitCode !== null, 60_000);
      const ran = /^R (\S+)$/m.exec(out)?.[1];
      if (ran === undefined) throw new Error(`the child engine failed: ${err}`);
      await waitFor("the child's closed invocation in its live history view", () => history().includes(ran), 30_000);
      child.kill('SIGKILL');
      await exited;
      const atKill = history();

      returned.length = 0;
      engine = await createEngine({ scenarioPath: SCENARIO, manifestPath: MANIFEST, runtime: runtime(), dataDir, episodeId: 'episode-live' });
      await advanceUntilReturned(1);
      const next = returned[0]!;
      await waitFor('the next closed invocation in the resumed history view', () => history().includes(next), 30_000);
      const after = history();
      expect(after.slice(0, atKill.length)).toEqual(atKill);
      expect(new Set(after).size).toBe(after.length);
      expect(after).toEqual(expect.arrayContaining([ran, next]));
    } finally {
      child.kill('SIGKILL');
      await engine?.close();
      engine = undefined;
      dataDir = saved;
    }
  });
});
