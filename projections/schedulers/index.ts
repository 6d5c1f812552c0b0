import type { Database, Statement } from 'better-sqlite3';
import type { StopReason } from '../../domain/scheduler';
import { SCHEDULER_STREAM_PREFIX } from '../../domain/streams';
import type { Projection } from '../runner';
import { asSchedulerEvent } from '../../domain/stored-events';

/**
 * Schedulers, one per policy and participant: running or stopped, with the action that stopped it and
 * the indeterminate tool actions an operator has yet to resolve. Shape: schemas/scheduler-status-v1.json.
 */
export interface SchedulerStatus {
  readonly policy_address: string;
  readonly participant_address: string;
  readonly status: 'running' | 'stopped';
  readonly stopped_by: {
    readonly reason: StopReason;
    readonly action_instance_id: string;
    readonly indeterminate_action_ids: readonly string[];
    readonly stopped_at: string;
  } | null;
  readonly unresolved_action_ids: readonly string[];
  readonly attempts_started: number;
  readonly execution_generation: number;
  readonly updated_at: string;
}

const TABLE = 'schedulers';


const byViews = new WeakMap<Database, { select: Statement<[string]>; upsert: Statement<[string, string, string, string]> }>();

const statements = (views: Database) => {
  let found = byViews.get(views);
  if (found === undefined) {
    found = {
      select: views.prepare(`SELECT state FROM ${TABLE} WHERE stream = ?`).pluck(),
      upsert: views.prepare(
        `INSERT INTO ${TABLE} (stream, participant_address, policy_address, state) VALUES (?, ?, ?, ?) ON CONFLICT(stream) DO UPDATE SET state = excluded.state`,
      ),
    };
    byViews.set(views, found);
  }
  return found;
};

/** `scheduler-<policy>|<participant>`: addresses never hold '|'. */
const addressesOf = (stream: string): { policy: string; participant: string } => {
  const rest = stream.slice(SCHEDULER_STREAM_PREFIX.length);
  const bar = rest.indexOf('|');
  return { policy: rest.slice(0, bar), participant: rest.slice(bar + 1) };
};

const initial = (policy: string, participant: string, at: string): SchedulerStatus => ({
  policy_address: policy,
  participant_address: participant,
  status: 'running',
  stopped_by: null,
  unresolved_action_ids: [],
  attempts_started: 0,
  execution_generation: 0,
  updated_at: at,
});

export const schedulersProjection: Projection = {
  name: 'schedulers',
  version: 1,
  setup(views) {
    views.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      stream TEXT PRIMARY KEY,
      participant_address TEXT NOT NULL,
      policy_address TEXT NOT NULL,
      state TEXT NOT NULL
    )`);
  },
  reset(views) {
    byViews.delete(views);
    views.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  },
  apply(views, recorded) {
    const event = asSchedulerEvent(recorded);
    if (event === undefined) return;
    const s = statements(views);
    const { policy, participant } = addressesOf(recorded.stream);
    const stored = s.select.get(recorded.stream) as string | undefined;
    const current = stored === undefined ? initial(policy, participant, event.at) : (JSON.parse(stored) as SchedulerStatus);
    let next: SchedulerStatus;
    switch (event.type) {
      case 'AttemptStarted':
        next = { ...current, attempts_started: event.attempt, execution_generation: event.execution_generation, updated_at: event.at };
        break;
      case 'AttemptFinished': {
        const unresolved = new Set(current.unresolved_action_ids);
        for (const id of event.indeterminate_action_ids) unresolved.add(id);
        next = { ...current, unresolved_action_ids: [...unresolved], updated_at: event.at };
        break;
      }
      case 'SchedulerStopped':
        next = {
          ...current,
          status: 'stopped',
          stopped_by: {
            reason: event.reason,
            action_instance_id: event.action_instance_id,
            indeterminate_action_ids: event.indeterminate_action_ids,
            stopped_at: event.at,
          },
          updated_at: event.at,
        };
        break;
      case 'IndeterminateActionResolved':
        next = {
          ...current,
          unresolved_action_ids: current.unresolved_action_ids.filter((id) => id !== event.action_instance_id),
          updated_at: event.at,
        };
        break;
      case 'SchedulerRestarted':
        next = { ...current, status: 'running', stopped_by: null, updated_at: event.at };
        break;
      case 'ExecutionGenerationAdvanced':
        next = { ...current, execution_generation: event.execution_generation, updated_at: event.at };
        break;
    }
    s.upsert.run(recorded.stream, participant, policy, JSON.stringify(next));
  },
};

const tableExists = (views: Database): boolean =>
  views.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(TABLE) !== undefined;

/** Every scheduler seen, by participant then policy; narrowed to one participant when given. */
export const listSchedulers = (views: Database, participant?: string): readonly SchedulerStatus[] => {
  if (!tableExists(views)) return [];
  const rows = (
    participant === undefined
      ? views.prepare(`SELECT state FROM ${TABLE} ORDER BY participant_address, policy_address`).pluck().all()
      : views.prepare(`SELECT state FROM ${TABLE} WHERE participant_address = ? ORDER BY policy_address`).pluck().all(participant)
  ) as string[];
  return rows.map((row) => JSON.parse(row) as SchedulerStatus);
};

