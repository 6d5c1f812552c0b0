import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../adapters/event-store/sqlite/sqlite-event-store';
import { sqliteViews } from '../../adapters/views/sqlite';
import { openViewsDatabase } from '../../adapters/views/views-database';
import { FOLLOWED_PROJECTIONS, ProjectionRunner } from '../../projections';
import type { FigureResult } from '../support/figure';
import { measureFsyncLatency } from '../support/fsync-baseline';
import { progress } from '../support/progress';
import { elapsedMs, summarize } from '../support/stats';

/**
 * How long a durable event takes to be visible in the views while they follow the log live: from the
 * append's acknowledgement (the event is durable) until every projection's checkpoint, committed with
 * its rows in the views database, covers it. One event at a time, so each sample is one wake of the
 * subscription, one page read and one views transaction.
 */

const TARGET_P99_MS = 50;

export const viewLagFigure = async (quick: boolean): Promise<FigureResult> => {
  const samples = quick ? 100 : 400;
  const dir = mkdtempSync(join(tmpdir(), 'raes-bench-view-lag-'));
  const store = openSqliteEventStore({ path: join(dir, 'events.sqlite') });
  if (store.kind === 'storage_failure') throw new Error(store.reason);
  const database = openViewsDatabase(join(dir, 'views.sqlite'));
  if ('kind' in database) throw new Error(database.reason);
  const runner = new ProjectionRunner({ store, views: sqliteViews(database), projections: FOLLOWED_PROJECTIONS });
  const visible = (position: bigint): boolean => FOLLOWED_PROJECTIONS.every((projection) => (runner.checkpointOf(projection.name) ?? -1n) >= position);
  const waitVisible = (position: bigint): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => (visible(position) ? resolve() : void setImmediate(check));
      check();
    });
  try {
    const fsync = measureFsyncLatency(dir);
    runner.startLive();
    progress(`view lag: ${samples} events, each awaited in the views`);
    const lags: number[] = [];
    for (let index = 0; index < samples + 10; index++) {
      const appended = await store.append(`bench-lag-${index % 8}`, [{ id: `e${index}`, type: 'BenchEventRecorded', data: { index } }], { expectedRevision: 'any' });
      if (appended.kind !== 'appended') throw new Error(`the append failed: ${JSON.stringify(appended)}`);
      const start = process.hrtime.bigint();
      await waitVisible(appended.lastPosition);
      if (index >= 10) lags.push(elapsedMs(start));
    }
    const lag = summarize(lags);
    const F = fsync.p50;
    return {
      figure: 'view-lag',
      title: 'Live views: event durable -> visible in every view (SQLite store and views)',
      rows: [
        { measure: 'F: 4 KiB write + fdatasync', p50: fsync.p50, p99: fsync.p99, unit: 'ms', relative: '1.00 F' },
        { measure: 'append acknowledged -> every view checkpoint covers it', p50: lag.p50, p99: lag.p99, unit: 'ms', relative: `${(lag.p50 / F).toFixed(2)} F` },
      ],
      target: `p99 <= ${TARGET_P99_MS} ms`,
      measured: `p99 ${lag.p99.toFixed(3)} ms, p50 ${(lag.p50 / F).toFixed(2)} F (${lag.samples} events)`,
      met: lag.p99 <= TARGET_P99_MS,
      notes: ['the lag is one wake of the store subscription, one page read and one views transaction of the views database'],
    };
  } finally {
    await runner.stop();
    await store.close();
    database.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
