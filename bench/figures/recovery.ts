import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { HarnessRuntime, RuntimeManager } from '../../domain/application';
import { openInvocationsIndex } from '../../adapters/views/open-invocations-index';
import { fillStore } from '../replay.bench';
import type { FigureResult, FigureRow } from '../support/figure';
import { progress } from '../support/progress';
import { measureFsyncLatency } from '../support/fsync-baseline';
import { elapsedMs } from '../support/stats';
import { benchManifest, benchScenario, openBenchStore, steppingClock } from '../support/world';
import { admitAndDispatch, admitRequest, completeCall, outerResult } from './port-world';

/**
 * Recovery after a restart: a store holds `history` events of finished attempts (the replay
 * benchmark's history, 64 participants, with attempt numbers made consistent per participant) and
 * then `open` invocations interrupted mid-flight, one per participant, each with a completed, a
 * dispatched and an admitted tool action, left by a real runtime manager whose harnesses never
 * returned. The history's participants are among the interrupted ones, so their schedulers carry the
 * long histories. The views (open invocations, scheduler snapshots) were current at the crash, as a
 * running manager keeps them. Timed: a new runtime manager over the same files, from construction to
 * the end of `start()` (ready: every interrupted invocation durably settled and closed and its attempt
 * counted; the views then catch up over those events in the background, which is not timed).
 */

const TARGET_MS = 1000;
const TARGET_OPEN = 10_000;
/** The interrupted invocations' participants: agent-1 to agent-63 are also the history's. */
const OPEN_AGENTS = 'agent';
/** Group commits recovery needs at least for 10,000 invocations: settle-and-close, then finish-attempt, per window of 512. */
const FSYNCS_PER_10K = 2 * Math.ceil(10_000 / 512);
/** Restarts per case, each over a fresh copy of the same crashed files; the median is the figure. */
const RUNS_PER_CASE = 3;

export interface Case {
  readonly open: number;
  readonly history: number;
}

export interface CrashedFiles {
  readonly eventsPath: string;
  readonly viewsPath: string;
}

/**
 * The history generator repeats one template attempt, so every AttemptStarted says attempt 1, tick 1.
 * A scheduler folds attempt numbers and ticks: give each participant's attempts 1, 2, 3... (the number
 * its action instance id already ends with) and the same tick, as a real scheduler would have written.
 */
const numberSchedulerAttempts = (eventsPath: string): void => {
  const db = new BetterSqlite3(eventsPath);
  db.pragma('synchronous = OFF');
  const rows = db.prepare(`SELECT position, data FROM events WHERE stream LIKE 'scheduler-%'`).all() as { position: number; data: string }[];
  const update = db.prepare('UPDATE events SET data = ? WHERE position = ?');
  db.transaction(() => {
    for (const row of rows) {
      const event = JSON.parse(row.data) as { type: string; action_instance_id: string; attempt: number; tick?: number };
      const attempt = Number(event.action_instance_id.slice(event.action_instance_id.lastIndexOf(':') + 1));
      event.attempt = attempt;
      if (event.type === 'AttemptStarted') event.tick = attempt;
      update.run(JSON.stringify(event), row.position);
    }
  })();
  db.close();
};

/** The history once per size, with its views caught up by the engine's own runner; copied for each case. */
export const historyFile = async (dir: string, events: number, cache: Map<number, CrashedFiles>): Promise<CrashedFiles> => {
  const found = cache.get(events);
  if (found !== undefined) return found;
  const eventsPath = join(dir, `history-${events}.sqlite`);
  const viewsPath = join(dir, `history-views-${events}.sqlite`);
  progress(`recovery: filling ${events.toLocaleString('en-US')} events of history`);
  const start = process.hrtime.bigint();
  if (events > 0) {
    fillStore(eventsPath, events);
    numberSchedulerAttempts(eventsPath);
  }
  const store = openBenchStore(eventsPath);
  const views = new BetterSqlite3(viewsPath);
  await openInvocationsIndex(store, views).catchUp();
  views.close();
  await store.close();
  progress(`recovery: history filled and its views caught up in ${(elapsedMs(start) / 1000).toFixed(1)} s`);
  const files = { eventsPath, viewsPath };
  cache.set(events, files);
  return files;
};

/** Leaves `open` invocations interrupted: their harnesses reach a point they never leave. */
const interruptInvocations = async (eventsPath: string, viewsPath: string, open: number): Promise<void> => {
  const store = openBenchStore(eventsPath);
  const views = new BetterSqlite3(viewsPath);
  let reached = 0;
  let allReached: () => void = () => undefined;
  const crashPoint = new Promise<void>((resolve) => (allReached = resolve));
  const manager = new RuntimeManager({
    compiled: benchScenario({ agents: open, agentPrefix: OPEN_AGENTS }),
    manifest: benchManifest(),
    runtime: new HarnessRuntime(async (request, _snapshot, port) => {
      if (port === undefined) throw new Error('no port was attached');
      await completeCall(port, await admitAndDispatch(port, 'call-1'));
      await admitAndDispatch(port, 'call-2');
      const admitted = await port.admit(admitRequest(port, 'call-3'));
      if (!admitted.admitted) throw new Error(`admission refused: ${admitted.refusal}`);
      if (++reached === open) allReached();
      await new Promise<never>(() => undefined); // the engine dies here
      return outerResult(request);
    }),
    store,
    openInvocations: openInvocationsIndex(store, views),
    episodeId: 'episode-bench',
    clock: steppingClock(),
    onProgress: (event) => {
      if (event.kind === 'storage_failure') process.stderr.write(`storage failure: ${event.reason}\n`);
    },
  });
  await manager.start();
  manager.advance(1).catch((error: unknown) => process.stderr.write(`interrupting failed: ${String(error)}\n`));
  await crashPoint;
  const caughtUp = await openInvocationsIndex(store, views).catchUp();
  if (typeof caughtUp !== 'object') throw new Error('the open-invocations view did not catch up');
  views.close();
  await store.close();
};

/** The files a crash left: the history, then `open` invocations interrupted mid-flight. */
export const crashedFiles = async (dir: string, history: CrashedFiles, testCase: Case): Promise<CrashedFiles> => {
  const eventsPath = join(dir, `recover-${testCase.open}-${testCase.history}.sqlite`);
  const viewsPath = join(dir, `views-${testCase.open}-${testCase.history}.sqlite`);
  copyFileSync(history.eventsPath, eventsPath);
  copyFileSync(history.viewsPath, viewsPath);
  progress(`recovery: interrupting ${testCase.open.toLocaleString('en-US')} invocations`);
  await interruptInvocations(eventsPath, viewsPath, testCase.open);
  return { eventsPath, viewsPath };
};

/** A new runtime manager over the crashed files, timed from construction to the end of `start()`. */
export const restartOnce = async (files: CrashedFiles, testCase: Case, around?: (start: () => Promise<void>) => Promise<void>): Promise<number> => {
  const { eventsPath, viewsPath } = files;
  const compiled = benchScenario({ agents: testCase.open, agentPrefix: OPEN_AGENTS }); // the scenario is loaded before the engine starts
  const manifest = benchManifest();
  progress(`recovery: restarting over ${testCase.history.toLocaleString('en-US')} events of history`);
  const start = process.hrtime.bigint();
  const store = openBenchStore(eventsPath);
  const views = new BetterSqlite3(viewsPath);
  const manager = new RuntimeManager({
    compiled,
    manifest,
    runtime: new HarnessRuntime(async (request) => outerResult(request)),
    store,
    openInvocations: openInvocationsIndex(store, views),
    episodeId: 'episode-bench',
    clock: steppingClock(Date.parse('2026-04-12T10:00:00Z')),
  });
  await (around === undefined ? manager.start() : around(() => manager.start()));
  const ms = elapsedMs(start);
  await manager.viewsCurrent();
  const left = views.prepare('SELECT COUNT(*) FROM open_invocations').pluck().get() as number;
  if (left !== 0) throw new Error(`${left} invocations are still open after recovery`);
  await manager.close();
  views.close();
  await store.close();
  for (const path of [eventsPath, viewsPath]) for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  return ms;
};

/** Restarts RUNS_PER_CASE times over copies of one crash; returns the times in ms, fastest first. */
const recoverRuns = async (dir: string, history: CrashedFiles, testCase: Case): Promise<number[]> => {
  const crashed = await crashedFiles(dir, history, testCase);
  const times: number[] = [];
  for (let run = 1; run <= RUNS_PER_CASE; run += 1) {
    const copy = { eventsPath: `${crashed.eventsPath}.run`, viewsPath: `${crashed.viewsPath}.run` };
    copyFileSync(crashed.eventsPath, copy.eventsPath);
    copyFileSync(crashed.viewsPath, copy.viewsPath);
    times.push(await restartOnce(copy, testCase));
  }
  for (const path of [crashed.eventsPath, crashed.viewsPath]) rmSync(path, { force: true });
  return times.sort((a, b) => a - b);
};

export const recoveryFigure = async (quick: boolean, only?: readonly Case[]): Promise<FigureResult> => {
  const cases: readonly Case[] = only ?? (quick
    ? [
        { open: 100, history: 100_000 },
        { open: 1_000, history: 100_000 },
        { open: 1_000, history: 300_000 },
      ]
    : [
        { open: 1_000, history: 1_000_000 },
        { open: 10_000, history: 1_000_000 },
        { open: 10_000, history: 3_000_000 },
      ]);
  const dir = mkdtempSync(join(tmpdir(), 'raes-bench-recovery-'));
  const histories = new Map<number, CrashedFiles>();
  try {
    const fsync = measureFsyncLatency(dir);
    const rows: FigureRow[] = [
      {
        measure: 'F: 4 KiB write + fdatasync',
        p50: fsync.p50,
        p99: fsync.p99,
        unit: 'ms',
        relative: `floor for 10,000 open: ${Math.round(fsync.p50 * FSYNCS_PER_10K).toLocaleString('en-US')} ms`,
      },
    ];
    const results: { testCase: Case; ms: number }[] = [];
    for (const testCase of cases) {
      const times = await recoverRuns(dir, await historyFile(dir, testCase.history, histories), testCase);
      const ms = times[Math.floor(times.length / 2)]!;
      results.push({ testCase, ms });
      rows.push({
        measure: `${testCase.open.toLocaleString('en-US')} open, ${testCase.history.toLocaleString('en-US')} events of history`,
        p50: ms,
        p99: null,
        unit: 'ms',
        relative:
          `${((ms / testCase.open) * 1000).toFixed(1)} us per open invocation, ${(ms / fsync.p50).toFixed(0)} F ` +
          `(runs ${times.map((t) => Math.round(t)).join(', ')} ms)`,
      });
    }
    const largestOpen = Math.max(...cases.map((c) => c.open));
    const largest = results.filter((r) => r.testCase.open === largestOpen);
    // Smaller runs (--quick) are judged against the target scaled down in proportion to open invocations.
    const targetMs = (TARGET_MS * Math.min(largestOpen, TARGET_OPEN)) / TARGET_OPEN;
    const worst = Math.max(...largest.map((r) => r.ms));
    const shortest = largest[0]!;
    const longest = largest[largest.length - 1]!;
    const historyGrowth = longest.ms / shortest.ms;
    const historyRatio = longest.testCase.history / shortest.testCase.history;
    return {
      figure: 'recovery',
      title: 'Recovery after a restart: new runtime manager to ready (start() done)',
      rows,
      target: `<= ${Math.round(targetMs)} ms with ${largestOpen.toLocaleString('en-US')} open invocations, not growing with history`,
      measured: `${Math.round(worst)} ms; ${historyRatio} x the history took ${historyGrowth.toFixed(2)} x the time`,
      met: worst <= targetMs && historyGrowth < 1 + (historyRatio - 1) / 4,
      notes: [
        `median of ${RUNS_PER_CASE} restarts per case, each over a fresh copy of the same crash; the history is filled with batched inserts of the replay benchmark's attempts, ` +
          'its participants (agent-1 to agent-63) among the interrupted ones, their views caught up before the crash',
        ...(worst <= targetMs
          ? []
          : [
              'recovery is CPU-bound, not fsync-bound (see the floor): per invocation the main thread restores the fold the view keeps, ' +
                'decides settle-and-close and the attempt\'s finish, and the writer thread inserts and commits them (two appends, ' +
                'four to five rows); a fixed part (the writer thread starting, about 40 ms) weighs on small cases; see docs/performance.md',
            ]),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
