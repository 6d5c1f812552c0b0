import type { Database } from 'better-sqlite3';
import type { EventStore } from '../../domain/ports/event-store';
import { FOLLOWED_PROJECTIONS } from '../../projections';
import { ProjectionRunner } from '../../projections/runner';
import { openViews, STORES } from './support/stores';
import { InvocationDriver, participant, POLICY, SchedulerDriver, tick } from './support/world';

/** Every table of the views database but the checkpoints, each row in key order. */
const viewRows = (db: Database): Record<string, unknown[]> => {
  const tables = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'projection_checkpoints' ORDER BY name`)
    .pluck()
    .all() as string[];
  const rows: Record<string, unknown[]> = {};
  for (const table of tables) rows[table] = db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2, 3`).all();
  return rows;
};

/**
 * A history whose aggregates interleave across page boundaries: schedulers starting and finishing
 * attempts, invocations returning, throwing, left open, with an unknown tool action resolved late.
 */
const buildHistory = async (store: EventStore): Promise<void> => {
  const names = ['prober', 'scout', 'mapper'];
  const schedulers = names.map((name) => new SchedulerDriver(store, participant(name)));
  for (let attempt = 1; attempt <= 3; attempt++) {
    const drivers: InvocationDriver[] = [];
    for (let s = 0; s < schedulers.length; s++) {
      const scheduler = schedulers[s]!;
      await scheduler.run({ type: 'StartAttempt', policy: scheduler.policy, tick: attempt, at: tick() });
      const driver = new InvocationDriver(store, participant(names[s]!), attempt);
      await driver.open();
      await driver.activate();
      drivers.push(driver);
    }
    const unknowns: (string | undefined)[] = [];
    for (const driver of drivers) {
      const done = await driver.admit();
      await driver.dispatch(done);
      await driver.complete(done);
      const lost = await driver.admit();
      await driver.dispatch(lost);
      await driver.reportUnknown(lost);
      unknowns.push(lost);
    }
    for (let s = 0; s < drivers.length; s++) {
      const driver = drivers[s]!;
      // The last attempt's third invocation stays open: its row must survive the catch-up as it is.
      if (attempt === 3 && s === 2) continue;
      if (s === 1) await driver.throwFromHarness();
      else await driver.returnResult();
      await driver.resolve(unknowns[s]!);
      const scheduler = schedulers[s]!;
      await scheduler.run({ type: 'FinishAttempt', policy: scheduler.policy, attempt, outcome: 'succeeded', indeterminate_action_ids: [], at: tick() });
    }
  }
};

describe.each(STORES)('catching every followed view up on the %s store', (_name, makeStore) => {
  it('leaves the same rows whatever the page and read sizes: one event per page, pages splitting aggregates, one page for all', async () => {
    const store = makeStore();
    await buildHistory(store);
    const caughtUp = async (pageSize: number, readSize?: number): Promise<Record<string, unknown[]>> => {
      const views = openViews();
      const runner = new ProjectionRunner({ store, views, projections: FOLLOWED_PROJECTIONS, pageSize, ...(readSize === undefined ? {} : { readSize }) });
      const result = await runner.catchUp();
      expect(result.kind).toBe('caught_up');
      return viewRows(views.database);
    };
    const perEvent = await caughtUp(1);
    expect(Object.keys(perEvent).length).toBeGreaterThanOrEqual(FOLLOWED_PROJECTIONS.length);
    expect(perEvent['operations']?.length).toBeGreaterThan(0);
    expect(perEvent['open_invocations']).toHaveLength(1);
    expect(await caughtUp(7)).toEqual(perEvent);
    // Pages read from the store a few events at a time, and one page for all read in small reads.
    expect(await caughtUp(7, 2)).toEqual(perEvent);
    expect(await caughtUp(1000)).toEqual(perEvent);
    expect(await caughtUp(1000, 5)).toEqual(perEvent);
  });
});
