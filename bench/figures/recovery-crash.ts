import { spawn } from 'node:child_process';
import { HarnessRuntime, RuntimeManager } from '../../domain/application';
import { openInvocationsIndex } from '../../adapters/views/open-invocations-index';
import { sqliteViews } from '../../adapters/views/sqlite';
import { FOLLOWED_PROJECTIONS, ProjectionRunner } from '../../projections';
import { benchManifest, benchScenario, openBenchChainedStore, openBenchViews, steppingClock } from '../support/world';
import { admitAndDispatch, admitRequest, completeCall, outerResult } from './port-world';

/**
 * The engine the recovery figure kills. It runs as `raes-tools run` does (a runtime manager whose
 * open-invocations index is kept in the views database, and every view following the log live beside
 * it) until `open` invocations are mid-flight, each with a completed, a dispatched and an admitted tool
 * action; it then says so on stdout and the parent SIGKILLs it. The files are left as a real crash
 * mid-tick leaves them: the views as far as the live follower had committed, the WAL as it was.
 */

/** The interrupted invocations' participants: agent-1 to agent-63 are also the history's. */
export const OPEN_AGENTS = 'agent';
/**
 * The history's episode (bench/replay.bench.ts): the engine runs in it, so the history's participants
 * continue their own schedulers, whose streams hold every attempt they ever started.
 */
export const HISTORY_EPISODE = 'episode-0001';
const REACHED = 'interrupted\n';

const runUntilInterrupted = async (eventsPath: string, viewsPath: string, open: number): Promise<void> => {
  const store = openBenchChainedStore(eventsPath);
  const database = openBenchViews(viewsPath);
  const live = new ProjectionRunner({ store, views: sqliteViews(database), projections: FOLLOWED_PROJECTIONS });
  let reached = 0;
  const manager = new RuntimeManager({
    compiled: benchScenario({ agents: open, agentPrefix: OPEN_AGENTS }),
    manifest: benchManifest(),
    runtime: new HarnessRuntime(async (request, _snapshot, port) => {
      if (port === undefined) throw new Error('no port was attached');
      await completeCall(port, await admitAndDispatch(port, 'call-1'));
      await admitAndDispatch(port, 'call-2');
      const admitted = await port.admit(admitRequest(port, 'call-3'));
      if (!admitted.admitted) throw new Error(`admission refused: ${admitted.refusal}`);
      if (++reached === open) process.stdout.write(REACHED);
      await new Promise<never>(() => undefined); // the engine dies here
      return outerResult(request);
    }),
    store,
    openInvocations: openInvocationsIndex(store, database),
    episodeId: HISTORY_EPISODE,
    clock: steppingClock(),
    onProgress: (event) => {
      if (event.kind === 'storage_failure') process.stderr.write(`storage failure: ${event.reason}\n`);
    },
  });
  await manager.start();
  live.startLive();
  await manager.advance(1);
};

/** Runs the engine in a child process until `open` invocations are interrupted, then SIGKILLs it. */
export const crashMidTick = (eventsPath: string, viewsPath: string, open: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', __filename, eventsPath, viewsPath, String(open)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let said = '';
    let killed = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      said += chunk;
      if (!killed && said.includes(REACHED)) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (killed && signal === 'SIGKILL') resolve();
      else reject(new Error(`the engine to crash exited before its invocations were interrupted (code ${code}, signal ${signal}): ${said}`));
    });
  });

if (require.main === module) {
  const [eventsPath, viewsPath, open] = process.argv.slice(2);
  if (eventsPath === undefined || viewsPath === undefined || open === undefined) {
    process.stderr.write('usage: recovery-crash.ts <events.sqlite> <views.sqlite> <open invocations>\n');
    process.exit(2);
  }
  runUntilInterrupted(eventsPath, viewsPath, Number(open)).catch((error: unknown) => {
    process.stderr.write(`the engine to crash failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
