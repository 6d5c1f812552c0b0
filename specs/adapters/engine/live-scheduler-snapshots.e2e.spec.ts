import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createEngine, type Engine } from '../../../adapters/engine/create-engine';
import { HarnessRuntime } from '../../../domain/application';
import { probeResult } from '../../../examples/harness/scripted-harness';
import { scratchDir } from '../../support/scratch-dir';
import { waitFor } from '../event-store/support/wait-for';

/**
 * The scheduler snapshots recovery restores from follow the log while a tick is still running, as the
 * other views do: a crash mid-tick leaves them behind by the follower's lag, not by the whole tick.
 */

jest.setTimeout(60_000);

const ROOT = join(__dirname, '../../..');
const SCENARIO = join(ROOT, 'examples/portal-probe.scenario.yaml');
const MANIFEST = join(ROOT, 'examples/portal-probe.manifest.json');

describe('scheduler snapshots of a running engine', () => {
  let dataDir: string;
  let engine: Engine | undefined;
  let release: () => void = () => undefined;

  beforeAll(() => {
    dataDir = scratchDir('live-snapshots');
  });
  afterAll(async () => {
    release();
    await engine?.close();
  });

  const inFlightOfSnapshots = (): string[] => {
    const db = new BetterSqlite3(join(dataDir, 'views.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT state FROM scheduler_snapshots').all() as { state: string }[];
      // Stored as the scheduler state's in-flight map's entries: [attempt, invocation action instance id].
      return rows.flatMap((row) => (JSON.parse(row.state) as { in_flight: [number, string][] }).in_flight.map(([, id]) => id));
    } catch {
      return [];
    } finally {
      db.close();
    }
  };

  it('shows an attempt in flight in the snapshot while its invocation has not returned', async () => {
    let started: (id: string) => void = () => undefined;
    const attemptStarted = new Promise<string>((resolve) => (started = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    engine = await createEngine({
      scenarioPath: SCENARIO,
      manifestPath: MANIFEST,
      runtime: new HarnessRuntime(async (request) => {
        started(request.action_instance_id);
        await held;
        return probeResult(request, []);
      }),
      dataDir,
      episodeId: 'episode-snapshots',
    });
    let tickDone = false;
    const tick = engine.advance(1).then(() => (tickDone = true));
    const invocation = await attemptStarted;
    await waitFor('the attempt in flight in the scheduler snapshot', () => inFlightOfSnapshots().includes(invocation), 30_000);
    expect(tickDone).toBe(false);
    release();
    await tick;
  });
});
