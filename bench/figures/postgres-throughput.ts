import { Pool } from 'pg';
import { openPostgresEventStore } from '../../adapters/event-store/postgres/postgres-event-store';
import { HarnessRuntime, RuntimeManager } from '../../domain/application';
import { startPostgresServer } from '../../specs/adapters/event-store/postgres/support/postgres-server';
import type { FigureResult } from '../support/figure';
import { measureRawPostgresActions, RAW_TABLE_SQL } from '../support/postgres-baseline';
import { progress } from '../support/progress';
import { elapsedMs, summarize } from '../support/stats';
import { benchManifest, benchScenario, steppingClock } from '../support/world';
import { admitAndDispatch, CALLS_PER_INVOCATION, completeCall, outerResult } from './port-world';

/**
 * Throughput on PostgreSQL: the throughput figure's 64 concurrent invocations (admitAndDispatch +
 * complete through the real port) on the postgres store, on a server this run starts in a temp dir.
 * Its raw baseline inserts the same rows with pg alone, batched as the engine's queue batches them at
 * best (its ceiling); engine and baseline run in alternating rounds, so both see the same disk and load.
 */

const INVOCATIONS = 64;
const POOL_SIZE = 10;
const EVENT_BYTES = 600;
/** The engine checks revisions, locks the log head and decides every command besides inserting the rows. */
const TARGET_RATIO = 0.5;

export const postgresThroughputFigure = async (quick: boolean): Promise<FigureResult> => {
  const rounds = quick ? 2 : 3;
  const seconds = quick ? 1.5 : 3;
  progress('postgres: starting a server in a temp dir');
  const server = await startPostgresServer();
  const store = openPostgresEventStore({ connectionString: server.url, poolSize: POOL_SIZE });
  const rawPool = new Pool({ connectionString: server.url, max: POOL_SIZE, options: '-c synchronous_commit=on' });
  const latencies: number[] = [];
  let actions = 0;
  let counting = false;
  const manager = new RuntimeManager({
    compiled: benchScenario({ agents: INVOCATIONS }),
    manifest: benchManifest(),
    runtime: new HarnessRuntime(async (request, _snapshot, port) => {
      if (port === undefined) throw new Error('no port was attached');
      for (let call = 1; call <= CALLS_PER_INVOCATION; call++) {
        const start = process.hrtime.bigint();
        const id = await admitAndDispatch(port, `call-${call}`);
        await completeCall(port, id);
        if (counting) {
          latencies.push(elapsedMs(start));
          actions++;
        }
      }
      return outerResult(request);
    }),
    store,
    episodeId: 'episode-bench',
    clock: steppingClock(),
  });
  try {
    await rawPool.query(RAW_TABLE_SQL);
    await manager.start();
    await manager.advance(1); // warm up
    const engineRates: number[] = [];
    const rawRates: number[] = [];
    for (let round = 0; round < rounds; round++) {
      progress(`postgres: round ${round + 1} of ${rounds}, engine then raw pg, ${seconds} s each`);
      actions = 0;
      counting = true;
      const start = process.hrtime.bigint();
      const deadline = Date.now() + seconds * 1000;
      while (Date.now() < deadline) await manager.advance(1);
      counting = false;
      engineRates.push(actions / (elapsedMs(start) / 1000));
      rawRates.push(await measureRawPostgresActions(rawPool, { writers: INVOCATIONS, rowBytes: EVENT_BYTES, seconds, round }));
    }
    const engine = summarize(engineRates).p50;
    const raw = summarize(rawRates).p50;
    const call = summarize(latencies);
    const ratio = engine / raw;
    return {
      figure: 'postgres-throughput',
      title: `Throughput on PostgreSQL, ${INVOCATIONS} concurrent invocations, one engine process (admitAndDispatch + complete)`,
      rows: [
        { measure: 'latency per tool call', p50: call.p50, p99: call.p99, unit: 'ms', relative: '' },
        { measure: 'tool actions per second, engine', p50: engine, p99: null, unit: '/s', relative: `${ratio.toFixed(2)} x raw` },
        { measure: `raw pg: the same rows, ${INVOCATIONS} actions' rows per commit`, p50: raw, p99: null, unit: 'actions/s', relative: '1.00 x raw' },
      ],
      target: `>= ${TARGET_RATIO} x the raw pg rate, same run`,
      measured: `${Math.round(engine).toLocaleString('en-US')} /s, ${ratio.toFixed(2)} x raw`,
      met: ratio >= TARGET_RATIO,
      notes: [
        `median of ${rounds} alternating rounds of ${seconds} s; engine rounds ${engineRates.map((r) => Math.round(r)).join(', ')} /s, raw ${rawRates.map((r) => Math.round(r)).join(', ')} /s`,
        'the engine commits one batch of appends at a time under the log-head row lock (gap-free positions); a batch is what arrived while the previous one committed',
        ...(ratio >= TARGET_RATIO
          ? []
          : [
              'each batch costs five round trips (begin + lock, revisions, insert, head + notify, commit) besides the commit, and every command ' +
                'also reads its stream through the pool; the raw ceiling pays one insert and the commit; see docs/performance.md',
            ]),
      ],
    };
  } finally {
    await manager.close();
    await store.close();
    await rawPool.end();
    await server.stop();
  }
};
