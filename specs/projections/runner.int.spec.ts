import type { Database } from 'better-sqlite3';
import type { ReadAllOptions, RecordedEvent } from '../../domain/ports/event-store';
import type { ViewsPort } from '../../domain/ports/views';
import { join } from 'node:path';
import { ProjectionRunner, type Projection } from '../../projections/runner';
import { openViewsDatabase } from '../../adapters/views/views-database';
import { sqliteViews, type SqliteViews } from '../../adapters/views/sqlite';
import { scratchDir } from '../support/scratch-dir';
import { openViews, STORES } from './support/stores';
import { participant, runReturningInvocation } from './support/world';

/** The rows of the specs' own projections: a table per projection name in the SQLite views database. */
interface SeenViews {
  readonly seen: {
    setup(name: string): void;
    reset(name: string): void;
    add(name: string, position: bigint, type: string): void;
  };
}

/** The SQLite views with the seen-positions tables beside the engine's. */
const withSeen = (views: SqliteViews): ViewsPort & SeenViews => {
  const db = views.database;
  return {
    checkpoints: views.checkpoints,
    transaction: (work) => views.transaction(work),
    seen: {
      setup: (name) => db.exec(`CREATE TABLE IF NOT EXISTS ${name}_rows (position INTEGER NOT NULL, type TEXT NOT NULL)`),
      reset: (name) => db.exec(`DROP TABLE IF EXISTS ${name}_rows`),
      add: (name, position, type) => db.prepare(`INSERT INTO ${name}_rows (position, type) VALUES (?, ?)`).run(position, type),
    },
  };
};

const openSeenViews = (): ViewsPort & SeenViews & { readonly database: Database } => {
  const views = openViews();
  return { ...withSeen(views), database: views.database };
};

/** Records every position it sees, in its own table, so the specs can check gaps and duplicates. */
const seenPositions = (name = 'seen', version = 1, failAt?: bigint): Projection<SeenViews> => ({
  name,
  version,
  setup: (views) => views.seen.setup(name),
  reset: (views) => views.seen.reset(name),
  apply: (views, event: RecordedEvent) => {
    views.seen.add(name, event.position, event.type);
    if (failAt !== undefined && event.position === failAt) throw new Error('the view cannot take this event');
  },
});

const positions = (views: { readonly database: Database }, name = 'seen'): number[] =>
  (views.database.prepare(`SELECT position FROM ${name}_rows ORDER BY rowid`).all() as { position: number }[]).map((row) => row.position);

const allPositions = (count: number): number[] => Array.from({ length: count }, (_, i) => i + 1);

/** Waits until `done()` holds, or fails the spec after `ms`: the lag a live view is allowed. */
const within = async (ms: number, done: () => boolean, what: string): Promise<void> => {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/** Like seenPositions, but throws on the event at `failAt` the first time only (a passing fault). */
const failingOnce = (failAt: bigint): Projection<SeenViews> & { failures: number } => {
  const projection = {
    ...seenPositions(),
    failures: 0,
    apply: (views: SeenViews, event: RecordedEvent) => {
      views.seen.add('seen', event.position, event.type);
      if (event.position === failAt && projection.failures === 0) {
        projection.failures += 1;
        throw new Error('a passing fault');
      }
    },
  };
  return projection;
};

describe.each(STORES)('the projection runner on the %s store', (_name, makeStore) => {
  it('catches up page by page and resumes from its checkpoint without gaps or duplicates', async () => {
    const store = makeStore();
    const views = openSeenViews();
    await runReturningInvocation(store, participant('prober'), 1); // 11 events
    const runner = new ProjectionRunner({ store, views, projections: [seenPositions()], pageSize: 4 });
    const progress: number[] = [];
    const first = await runner.catchUp((p) => progress.push(p.applied));
    expect(first).toEqual({ kind: 'caught_up', position: 11n, applied: 11 });
    expect(progress).toEqual([4, 8, 11]);

    await runReturningInvocation(store, participant('prober'), 2);
    // A new runner on the same views database: what a restarted process does.
    const resumed = new ProjectionRunner({ store, views, projections: [seenPositions()], pageSize: 4 });
    expect(await resumed.catchUp()).toEqual({ kind: 'caught_up', position: 22n, applied: 11 });
    expect(positions(views)).toEqual(allPositions(22));
    expect(await resumed.catchUp()).toEqual({ kind: 'caught_up', position: 22n, applied: 0 });
    expect(resumed.checkpointOf('seen')).toBe(22n);
    await store.close();
  });

  it('applies a page read from the store in several reads in one transaction, all or nothing', async () => {
    const store = makeStore();
    const views = openSeenViews();
    await runReturningInvocation(store, participant('prober'), 1); // 11 events
    const readSizes: number[] = [];
    const counted = new Proxy(store, {
      get(target, key) {
        if (key === 'readAll') {
          return async (options: ReadAllOptions) => {
            const read = await target.readAll(options);
            if (read.kind === 'read') readSizes.push(read.events.length);
            return read;
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const runner = new ProjectionRunner({ store: counted, views, projections: [seenPositions()], pageSize: 5, readSize: 2 });
    const progress: number[] = [];
    expect(await runner.catchUp((p) => progress.push(p.applied))).toEqual({ kind: 'caught_up', position: 11n, applied: 11 });
    expect(progress).toEqual([5, 10, 11]);
    expect(readSizes).toEqual([2, 2, 1, 2, 2, 1, 1]);
    expect(positions(views)).toEqual(allPositions(11));

    const failing = openSeenViews();
    // The page holding 6..10 is read as 6..7, 8..9 and 10; the event at 9 fails it whole.
    const broken = new ProjectionRunner({ store, views: failing, projections: [seenPositions('seen', 1, 9n)], pageSize: 5, readSize: 2 });
    expect(await broken.catchUp()).toEqual(expect.objectContaining({ kind: 'projection_failed', position: 9n }));
    expect(positions(failing)).toEqual([1, 2, 3, 4, 5]);
    expect(broken.checkpointOf('seen')).toBe(5n);
    await store.close();
  });

  it('never applies an event twice when two runners share one views database', async () => {
    const store = makeStore();
    const dir = scratchDir('runner-views');
    const path = join(dir, 'views.sqlite');
    await runReturningInvocation(store, participant('prober'), 1);
    await runReturningInvocation(store, participant('prober'), 2);
    // Two connections, as two processes (two audits at once) would hold; both start behind.
    const [left, right] = [openViewsDatabase(path), openViewsDatabase(path)] as Database[];
    const runners = [left!, right!].map(
      (database) => new ProjectionRunner({ store, views: withSeen(sqliteViews(database)), projections: [seenPositions()], pageSize: 4 }),
    );
    const results = await Promise.all(runners.map((runner) => runner.catchUp()));
    expect(results.map((result) => result.kind)).toEqual(['caught_up', 'caught_up']);
    expect(positions({ database: left! })).toEqual(allPositions(22));
    left!.close();
    right!.close();
    await store.close();
  });

  it('brings a newly added projection up from the start while the others resume', async () => {
    const store = makeStore();
    const views = openSeenViews();
    await runReturningInvocation(store, participant('prober'), 1);
    await new ProjectionRunner({ store, views, projections: [seenPositions('a')] }).catchUp();
    await runReturningInvocation(store, participant('prober'), 2);
    const runner = new ProjectionRunner({ store, views, projections: [seenPositions('a'), seenPositions('b')], pageSize: 5 });
    await runner.catchUp();
    expect(positions(views, 'a')).toEqual(allPositions(22));
    expect(positions(views, 'b')).toEqual(allPositions(22));
    await store.close();
  });

  it('commits a page all or nothing: a throwing apply leaves neither rows nor checkpoint', async () => {
    const store = makeStore();
    const views = openSeenViews();
    await runReturningInvocation(store, participant('prober'), 1);
    const runner = new ProjectionRunner({ store, views, projections: [seenPositions('seen', 1, 7n)], pageSize: 4 });
    const result = await runner.catchUp();
    expect(result).toEqual({
      kind: 'projection_failed',
      projection: 'seen',
      position: 7n,
      reason: expect.stringContaining('the view cannot take this event'),
    });
    // The first page (1..4) committed; the page holding 5..8 left nothing behind.
    expect(positions(views)).toEqual([1, 2, 3, 4]);
    expect(runner.checkpointOf('seen')).toBe(4n);

    const healed = new ProjectionRunner({ store, views, projections: [seenPositions()], pageSize: 4 });
    await healed.catchUp();
    expect(positions(views)).toEqual(allPositions(11));
    await store.close();
  });

  it('rebuilds a projection from scratch on demand and when its version is bumped', async () => {
    const store = makeStore();
    const views = openSeenViews();
    await runReturningInvocation(store, participant('prober'), 1);
    const runner = new ProjectionRunner({ store, views, projections: [seenPositions()] });
    await runner.catchUp();
    expect(await runner.rebuild('seen')).toEqual({ kind: 'caught_up', position: 11n, applied: 11 });
    expect(positions(views)).toEqual(allPositions(11));

    const bumped = new ProjectionRunner({ store, views, projections: [seenPositions('seen', 2)] });
    expect(await bumped.catchUp()).toEqual({ kind: 'caught_up', position: 11n, applied: 11 });
    expect(positions(views)).toEqual(allPositions(11));

    expect(await bumped.rebuild('nope')).toEqual(expect.objectContaining({ kind: 'projection_failed', reason: expect.stringContaining("no projection is named 'nope'") }));
    await store.close();
  });

  it('follows new events live until stopped', async () => {
    const store = makeStore();
    const views = openSeenViews();
    const runner = new ProjectionRunner({ store, views, projections: [seenPositions()] });
    runner.startLive({ retryMs: 5 });
    await runReturningInvocation(store, participant('prober'), 1);
    for (let i = 0; i < 200 && runner.checkpointOf('seen') !== 11n; i++) await new Promise((r) => setTimeout(r, 5));
    await runner.stop();
    expect(positions(views)).toEqual(allPositions(11));
    await runReturningInvocation(store, participant('prober'), 2);
    await new Promise((r) => setTimeout(r, 30));
    expect(runner.checkpointOf('seen')).toBe(11n);
    await store.close();
  });

  it('follows events appended after it started, and a restarted runner resumes from its checkpoint', async () => {
    const store = makeStore();
    const views = openSeenViews();
    await runReturningInvocation(store, participant('prober'), 1); // 1..11, before the start
    const committed: [bigint, bigint | undefined][] = [];
    const runner = new ProjectionRunner({ store, views, projections: [seenPositions()] });
    runner.startLive({ retryMs: 5, afterBatch: (batch) => void committed.push([batch.position, runner.checkpointOf('seen')]) });
    await within(2_000, () => runner.checkpointOf('seen') === 11n, 'catching up the events stored before the start');
    await runReturningInvocation(store, participant('prober'), 2); // 12..22, after it
    await within(2_000, () => runner.checkpointOf('seen') === 22n, 'following the events appended after the start');
    expect(positions(views)).toEqual(allPositions(22));
    // afterBatch runs once the batch and its checkpoint are committed.
    expect(committed.length).toBeGreaterThan(0);
    for (const [position, checkpoint] of committed) expect(checkpoint).toBe(position);
    await runner.stop();

    await runReturningInvocation(store, participant('prober'), 3); // 23..33, while nothing follows
    // A new runner on the same views: what a restarted process does.
    const restarted = new ProjectionRunner({ store, views, projections: [seenPositions()] });
    restarted.startLive({ retryMs: 5 });
    await within(2_000, () => restarted.checkpointOf('seen') === 33n, 'resuming from the checkpoint');
    await runReturningInvocation(store, participant('prober'), 4); // 34..44
    await within(2_000, () => restarted.checkpointOf('seen') === 44n, 'following after the restart');
    await restarted.stop();
    // Every event once, in order: none applied twice, none skipped.
    expect(positions(views)).toEqual(allPositions(44));
    await store.close();
  });

  it('follows again from the committed checkpoint after a batch failed, applying nothing twice', async () => {
    const store = makeStore();
    const views = openSeenViews();
    const projection = failingOnce(16n);
    const ended: string[] = [];
    const runner = new ProjectionRunner({ store, views, projections: [projection] });
    runner.startLive({ retryMs: 5, onEnded: (end) => ended.push(end.kind) });
    await runReturningInvocation(store, participant('prober'), 1);
    await within(2_000, () => runner.checkpointOf('seen') === 11n, 'following the first invocation');
    await runReturningInvocation(store, participant('prober'), 2);
    await within(2_000, () => runner.checkpointOf('seen') === 22n, 'following past the failed batch');
    await runner.stop();
    expect(projection.failures).toBe(1);
    expect(ended).toEqual(['handler_failed']);
    expect(positions(views)).toEqual(allPositions(22));
    await store.close();
  });

  it('reports an unreadable store as a storage failure', async () => {
    const store = makeStore();
    const views = openSeenViews();
    await store.close();
    const runner = new ProjectionRunner({ store, views, projections: [seenPositions()] });
    const result = await runner.catchUp();
    if (result.kind === 'storage_failure') expect(result.reason).toMatch(/reading all events failed/);
    else expect(result).toEqual({ kind: 'caught_up', position: undefined, applied: 0 });
  });
});
