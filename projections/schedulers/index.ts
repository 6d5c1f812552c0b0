import { SCHEDULER_STREAM_PREFIX } from '../../domain/streams';
import type { Projection } from '../runner';
import { asSchedulerEvent } from '../../domain/stored-events';
import type { SchedulerStatus, SchedulersReads, SchedulersWrites } from './view';

export type { SchedulerStatus, SchedulersReads, SchedulersWrites } from './view';

/** The views this projection keeps its rows in. */
export interface SchedulersViews {
  readonly schedulers: SchedulersWrites;
}

/** A scheduler's status before its first event; its stream is `scheduler-<policy>|<participant>` (addresses never hold '|'). */
const initial = (stream: string, at: string): SchedulerStatus => {
  const rest = stream.slice(SCHEDULER_STREAM_PREFIX.length);
  const bar = rest.indexOf('|');
  return {
    policy_address: rest.slice(0, bar),
    participant_address: rest.slice(bar + 1),
    status: 'running',
    stopped_by: null,
    unresolved_action_ids: [],
    attempts_started: 0,
    execution_generation: 0,
    updated_at: at,
  };
};

export const schedulersProjection: Projection<SchedulersViews> = {
  name: 'schedulers',
  version: 1,
  setup(views) {
    views.schedulers.setup();
  },
  reset(views) {
    views.schedulers.reset();
  },
  apply(views, recorded) {
    const event = asSchedulerEvent(recorded);
    if (event === undefined) return;
    const rows = views.schedulers;
    const current = rows.status(recorded.stream) ?? initial(recorded.stream, event.at);
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
    rows.save(recorded.stream, next);
  },
};

/** Every scheduler seen, by participant then policy; narrowed to one participant when given. */
export const listSchedulers = (views: { readonly schedulers: SchedulersReads }, participant?: string): readonly SchedulerStatus[] =>
  views.schedulers.list(participant);
