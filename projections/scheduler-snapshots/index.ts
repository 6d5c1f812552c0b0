import type { Database, Statement } from 'better-sqlite3';
import { evolveScheduler, initialSchedulerState, type SchedulerState } from '../../domain/scheduler';
import type { SchedulerSnapshot } from '../../domain/ports/open-invocations';
import type { Projection } from '../runner';
import { asSchedulerEvent } from '../../domain/stored-events';

/**
 * Scheduler snapshots: each scheduler stream's folded state and the revision it reflects, kept in the
 * views database by the same catch-up that keeps the open-invocations view. On start the runtime
 * manager restores its schedulers from them instead of folding every scheduler stream from its
 * beginning, so startup does not grow with the length of history. They are the runtime's own recovery
 * state, not a read model for people: the folding is the scheduler's decider's `evolveScheduler`.
 */


/** The stored shape: the state with its Map and Set as arrays. */
interface StoredSnapshot {
  readonly status: SchedulerState['status'];
  readonly attempts_started: number;
  readonly in_flight: readonly (readonly [number, string])[];
  readonly unresolved: readonly string[];
  readonly stopped_by: SchedulerState['stoppedBy'];
  readonly execution_generation: number;
  readonly last_tick: number | null;
}

const TABLE = 'scheduler_snapshots';

const toStored = (state: SchedulerState): StoredSnapshot => ({
  status: state.status,
  attempts_started: state.attemptsStarted,
  in_flight: [...state.inFlight],
  unresolved: [...state.unresolved],
  stopped_by: state.stoppedBy,
  execution_generation: state.executionGeneration,
  last_tick: state.lastTick,
});

const fromStored = (stored: StoredSnapshot): SchedulerState => ({
  status: stored.status,
  attemptsStarted: stored.attempts_started,
  inFlight: new Map(stored.in_flight),
  unresolved: new Set(stored.unresolved),
  stoppedBy: stored.stopped_by,
  executionGeneration: stored.execution_generation,
  lastTick: stored.last_tick,
});

interface Statements {
  readonly select: Statement<[string]>;
  readonly upsert: Statement<[string, number, string]>;
}

const byViews = new WeakMap<Database, Statements>();

const statements = (views: Database): Statements => {
  let found = byViews.get(views);
  if (found === undefined) {
    found = {
      select: views.prepare<[string]>(`SELECT revision, state FROM ${TABLE} WHERE stream = ?`),
      upsert: views.prepare<[string, number, string]>(
        `INSERT INTO ${TABLE} (stream, revision, state) VALUES (?, ?, ?) ON CONFLICT(stream) DO UPDATE SET revision = excluded.revision, state = excluded.state`,
      ),
    };
    byViews.set(views, found);
  }
  return found;
};

type Row = { readonly stream: string; readonly revision: number; readonly state: string };

/** Snapshots folded in this page, written once at its end (a scheduler has several events per page). */
const pending = new Map<string, { state: SchedulerState; revision: number }>();

export const schedulerSnapshotsProjection: Projection = {
  name: 'scheduler-snapshots',
  version: 1,
  setup(views) {
    views.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (stream TEXT PRIMARY KEY, revision INTEGER NOT NULL, state TEXT NOT NULL)`);
  },
  reset(views) {
    pending.clear();
    byViews.delete(views);
    views.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  },
  apply(views, recorded) {
    const event = asSchedulerEvent(recorded);
    if (event === undefined) return;
    let current = pending.get(recorded.stream);
    if (current === undefined) {
      const row = statements(views).select.get(recorded.stream) as Omit<Row, 'stream'> | undefined;
      current =
        row === undefined
          ? { state: initialSchedulerState(), revision: -1 }
          : { state: fromStored(JSON.parse(row.state) as StoredSnapshot), revision: row.revision };
      pending.set(recorded.stream, current);
    }
    current.state = evolveScheduler(current.state, event);
    current.revision = Number(recorded.revision);
  },
  endPage(views) {
    const upsert = statements(views).upsert;
    for (const [stream, snapshot] of pending) upsert.run(stream, snapshot.revision, JSON.stringify(toStored(snapshot.state)));
    pending.clear();
  },
  discardPending() {
    pending.clear();
  },
};

/** Every scheduler's snapshot, by stream; empty before the projection's first page. */
export const readSchedulerSnapshots = (views: Database): ReadonlyMap<string, SchedulerSnapshot> => {
  const snapshots = new Map<string, SchedulerSnapshot>();
  const exists = views.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(TABLE);
  if (exists === undefined) return snapshots;
  for (const row of views.prepare(`SELECT stream, revision, state FROM ${TABLE}`).iterate() as IterableIterator<Row>) {
    snapshots.set(row.stream, { state: fromStored(JSON.parse(row.state) as StoredSnapshot), revision: row.revision });
  }
  return snapshots;
};

export type { SchedulerSnapshot };
