import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { participantHistoryProjection } from '../../projections/participant-history';
import { allViewsCatchUp, fillLinkedStore, nothingProjection, projectionRebuild, rawReplay, rawReplayParsing } from '../replay.bench';
import { FOLLOWED_PROJECTIONS } from '../../projections';
import { INVOCATION_STREAM_PREFIX } from '../../domain/streams';
import type { FigureResult } from '../support/figure';
import { progress } from '../support/progress';
import { elapsedMs } from '../support/stats';

/**
 * Projection rebuild: the participant history view rebuilt from the start of a store of realistic
 * attempts (the replay benchmark's history), beside its like-for-like floor: raw better-sqlite3
 * iterate() of the same rows, parsing only the rows the projection parses (its invocations' openings).
 * Then every view the engine follows caught up from an empty views file, beside raw iterate() +
 * JSON.parse of every row. Baselines and figures take turns in two rounds; each is the better of its two.
 */

const TARGET_RATIO = 0.8;
const TARGET_ALL_VIEWS_RATIO = 0.5;
const ROUNDS = 2;

/** What the participant history projection parses: an invocation's opening (the rest it reads by type and stream alone). */
const parsedByHistory = (stream: string, type: string): boolean => type === 'InvocationOpened' && stream.startsWith(INVOCATION_STREAM_PREFIX);

type Run = { events: number; ms: number };
const best = (runs: readonly Run[]): Run => runs.reduce((a, b) => (a.ms <= b.ms ? a : b));

export const rebuildFigure = async (events: number): Promise<FigureResult> => {
  const dir = mkdtempSync(join(tmpdir(), 'raes-bench-rebuild-'));
  try {
    const path = join(dir, 'events.sqlite');
    progress(`rebuild: filling ${events.toLocaleString('en-US')} events`);
    const fillStart = process.hrtime.bigint();
    // Linked and sealed as an engine writer leaves its history: a view that reads links decodes them.
    const written = await fillLinkedStore(path, events);
    progress(`rebuild: filled ${written.toLocaleString('en-US')} events in ${(elapsedMs(fillStart) / 1000).toFixed(1)} s`);
    rawReplay(path); // warms the page cache and the JIT
    const raws: Run[] = [];
    const floors: Run[] = [];
    const readPaths: Run[] = [];
    const rebuilds: Awaited<ReturnType<typeof projectionRebuild>>[] = [];
    const allViews: Run[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      progress(`rebuild: round ${round} of ${ROUNDS}: raw, floor, read path, participant history, every view`);
      raws.push(rawReplay(path));
      floors.push(rawReplayParsing(path, parsedByHistory));
      readPaths.push(await projectionRebuild(path, join(dir, `nothing-${round}.sqlite`), nothingProjection));
      rebuilds.push(await projectionRebuild(path, join(dir, `views-${round}.sqlite`), participantHistoryProjection));
      allViews.push(await allViewsCatchUp(path, join(dir, `all-views-${round}.sqlite`)));
    }
    const raw = best(raws);
    const floor = best(floors);
    const readPath = best(readPaths);
    const rebuild = rebuilds.reduce((a, b) => (a.ms <= b.ms ? a : b));
    const all = best(allViews);
    const rate = (run: Run): number => (run.events / run.ms) * 1000;
    const ratio = rate(rebuild) / rate(floor);
    const allRatio = rate(all) / rate(raw);
    return {
      figure: 'rebuild',
      title: `Projection rebuild over ${written.toLocaleString('en-US')} events (participant history; every view from empty)`,
      rows: [
        { measure: 'baseline: raw iterate() + JSON.parse of every row', p50: rate(raw), p99: null, unit: 'events/s', relative: '1.00 x raw' },
        { measure: 'floor: raw iterate(), JSON.parse of the openings only', p50: rate(floor), p99: null, unit: 'events/s', relative: `${(rate(floor) / rate(raw)).toFixed(2)} x raw` },
        { measure: 'store read path + runner, no-op projection', p50: rate(readPath), p99: null, unit: 'events/s', relative: `${(rate(readPath) / rate(floor)).toFixed(2)} x floor` },
        { measure: 'participant history rebuild', p50: rate(rebuild), p99: null, unit: 'events/s', relative: `${ratio.toFixed(2)} x floor` },
        { measure: `every view the engine follows (${FOLLOWED_PROJECTIONS.length}), from empty`, p50: rate(all), p99: null, unit: 'events/s', relative: `${allRatio.toFixed(2)} x raw` },
      ],
      target: `participant history >= ${TARGET_RATIO} x its floor; every view from empty >= ${TARGET_ALL_VIEWS_RATIO} x raw`,
      measured: `${ratio.toFixed(2)} x floor; every view ${allRatio.toFixed(2)} x raw`,
      met: ratio >= TARGET_RATIO && allRatio >= TARGET_ALL_VIEWS_RATIO,
      notes: [
        `each figure is the better of ${ROUNDS} rounds in which baselines and figures take turns`,
        'the view is an index of closed invocations (about 150 B each); the history is rendered from the store when asked, ' +
          `so queries pay what the rebuild no longer does: the history of all ${written.toLocaleString('en-US')} events ` +
          `(${rebuild.rows.toLocaleString('en-US')} history events) renders in ${(rebuild.queryMs / 1000).toFixed(1)} s, ` +
          `one participant's (1/64, ${rebuild.participantRows.toLocaleString('en-US')} history events) in ${(rebuild.participantQueryMs / 1000).toFixed(2)} s; see docs/performance.md`,
        ...(ratio >= TARGET_RATIO && allRatio >= TARGET_ALL_VIEWS_RATIO
          ? []
          : ['the baselines only read; the projections also write their rows and commit them to the views database, one transaction per page ' +
              '(1,000 events for the participant history, the runner\'s default of 4,000 read 1,000 at a time for every view)']),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
