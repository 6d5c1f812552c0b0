import { elapsedMs, summarize } from '../support/stats';
import { measureFsyncLatency } from '../support/fsync-baseline';
import { measureSqliteBatchRate } from '../support/sqlite-batch-baseline';
import type { FigureResult } from '../support/figure';
import type { Harness } from '../../domain/application';
import { progress } from '../support/progress';
import { admitAndDispatch, CALLS_PER_INVOCATION, completeCall, outerResult, portWorld } from './port-world';

/**
 * Throughput: 64 participants run an invocation each on every tick, concurrently; each invocation makes
 * its tool calls one after another through its own port (admitAndDispatch + complete, two durable
 * appends of three events). The rate counts tool actions over the whole run, so opening and closing invocations and
 * the scheduler's attempts are paid for too. The store's appends are committed by its writer thread;
 * the raw baseline runs on this thread alone, before the figure, so the two never share the disk.
 */

const INVOCATIONS = 64;
const TARGET_RATE = 10_000;
const TARGET_P99_IN_F = 25;
/** About the mean size of an admitted, dispatched and settled event's JSON. */
const EVENT_BYTES = 600;
/** Events (rows) per tool action: admitted, dispatched, settled. */
const EVENTS_PER_ACTION = 3;
/** Durable appends per tool action: admitted with dispatched, then settled. */
const APPENDS_PER_ACTION = 2;

/** What one world measured while its turn was counted. */
type Tally = { latencies: number[]; actions: number; counting: boolean; ms: number };

const countingHarness = (tally: Tally): Harness => async (request, _snapshot, port) => {
  if (port === undefined) throw new Error('no port was attached');
  for (let call = 1; call <= CALLS_PER_INVOCATION; call++) {
    const start = process.hrtime.bigint();
    const id = await admitAndDispatch(port, `call-${call}`);
    await completeCall(port, id);
    if (tally.counting) {
      tally.latencies.push(elapsedMs(start));
      tally.actions++;
    }
  }
  return outerResult(request);
};

/** Half a second per turn: the worlds with and without the chain take turns, so both see the same machine. */
const TURN_MS = 500;

export const throughputFigure = async (quick: boolean): Promise<FigureResult> => {
  const seconds = quick ? 2 : 6;
  const chainedTally: Tally = { latencies: [], actions: 0, counting: false, ms: 0 };
  const plainTally: Tally = { latencies: [], actions: 0, counting: false, ms: 0 };
  const world = await portWorld('throughput', INVOCATIONS, countingHarness(chainedTally), { chained: true });
  const plainWorld = await portWorld('throughput-unchained', INVOCATIONS, countingHarness(plainTally));
  try {
    const fsync = measureFsyncLatency(world.dir);
    progress('throughput: raw better-sqlite3 batch rate');
    const rawRows = measureSqliteBatchRate(world.dir, { perCommit: INVOCATIONS, rowBytes: EVENT_BYTES, seconds: quick ? 1 : 2 });
    await world.manager.advance(1); // warm up
    await plainWorld.manager.advance(1);
    progress(`throughput: ${INVOCATIONS} concurrent invocations for ${seconds} s with the chain and ${seconds} s without, in turns`);
    for (let turn = 0; turn < (seconds * 2000) / TURN_MS; turn++) {
      const [turnWorld, tally] = turn % 2 === 0 ? [world, chainedTally] : [plainWorld, plainTally];
      tally.counting = true;
      const turnStart = process.hrtime.bigint();
      const turnEnd = Date.now() + TURN_MS;
      while (Date.now() < turnEnd) await turnWorld.manager.advance(1);
      tally.counting = false;
      tally.ms += elapsedMs(turnStart);
    }
    const latencies = chainedTally.latencies;
    const actions = chainedTally.actions;
    const plainRate = plainTally.actions / (plainTally.ms / 1000);
    const plainCall = summarize(plainTally.latencies);
    const wallSeconds = chainedTally.ms / 1000;
    const rate = actions / wallSeconds;
    const call = summarize(latencies);
    const F = fsync.p50;
    const p99InF = call.p99 / F;
    const rawCommitMs = (INVOCATIONS / rawRows) * 1000;
    return {
      figure: 'throughput',
      title: `Throughput, ${INVOCATIONS} concurrent invocations (admitAndDispatch + complete)`,
      rows: [
        { measure: 'F: 4 KiB write + fdatasync', p50: fsync.p50, p99: fsync.p99, unit: 'ms', relative: '1.00 F' },
        { measure: 'latency per tool call', p50: call.p50, p99: call.p99, unit: 'ms', relative: `p99 ${p99InF.toFixed(2)} F` },
        { measure: 'tool actions per second', p50: rate, p99: null, unit: '/s', relative: `${(rate / TARGET_RATE).toFixed(2)} x target` },
        { measure: 'latency per tool call, without the chain', p50: plainCall.p50, p99: plainCall.p99, unit: 'ms', relative: `p99 ${(plainCall.p99 / F).toFixed(2)} F` },
        { measure: 'tool actions per second, without the chain', p50: plainRate, p99: null, unit: '/s', relative: `chain costs ${((1 - rate / plainRate) * 100).toFixed(1)}%` },
        {
          measure: `raw better-sqlite3: ${INVOCATIONS} rows per commit`,
          p50: rawRows,
          p99: null,
          unit: 'rows/s',
          relative: `ceiling ${Math.round(rawRows / EVENTS_PER_ACTION).toLocaleString('en-US')} actions/s`,
        },
      ],
      target: `>= ${TARGET_RATE.toLocaleString('en-US')} tool actions/s and call p99 <= ${TARGET_P99_IN_F} F`,
      measured: `${Math.round(rate).toLocaleString('en-US')} /s, p99 ${p99InF.toFixed(2)} F`,
      met: rate >= TARGET_RATE && p99InF <= TARGET_P99_IN_F,
      notes: [
        'the engine runs with the hash chain and its seals (docs/integrity.md); the figures without it come from a second store, in alternating half-second turns',
        `${actions} tool actions in ${wallSeconds.toFixed(1)} s; ${(rate / (rawRows / EVENTS_PER_ACTION)).toFixed(2)} x the raw ceiling of ${EVENTS_PER_ACTION} rows per action`,
        ...(rate >= TARGET_RATE
          ? []
          : [
              `each action is ${APPENDS_PER_ACTION} durable appends, each waiting for a group commit; the 64 invocations wait for the same ` +
                'commits, so deciding (main thread) and committing (writer thread) mostly alternate instead of overlapping, ' +
                'and a commit of 64 appends costs several F (WAL pages + checkpoints); see docs/performance.md',
            ]),
        ...(p99InF <= TARGET_P99_IN_F
          ? []
          : [
              `p99: a call waits for ${APPENDS_PER_ACTION} group commits in turn, each behind the one in progress; the raw commit of ` +
                `${INVOCATIONS} rows alone takes ${rawCommitMs.toFixed(2)} ms (${(rawCommitMs / F).toFixed(1)} F), so the median call already ` +
                `takes ${(call.p50 / F).toFixed(1)} F, and the slowest also wait for a WAL checkpoint or a GC pause; see docs/performance.md`,
            ]),
      ],
    };
  } finally {
    await world.dispose();
    await plainWorld.dispose();
  }
};
