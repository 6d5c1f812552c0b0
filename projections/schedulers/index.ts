import { parseSchedulerStream, type SchedulerStreamName } from '../../domain/streams';
import type { Projection } from '../runner';
import { asSchedulerEvent } from '../../domain/stored-events';
import type { SchedulerFilter, SchedulerStatus, SchedulersReads, SchedulersWrites } from './view';

export type { SchedulerFilter, SchedulerStatus, SchedulersReads, SchedulersWrites } from './view';

/** The views this projection keeps its rows in. */
export interface SchedulersViews {
  readonly schedulers: SchedulersWrites;
}

/** A scheduler's status before its first event; its stream names its episode, policy and participant. */
const initial = (name: SchedulerStreamName, at: string): SchedulerStatus => {
  return {
    policy_address: name.policyAddress,
    participant_address: name.participantAddress,
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
  // 2: each row names its episode.
  version: 2,
  setup(views) {
    views.schedulers.setup();
  },
  reset(views) {
    views.schedulers.reset();
  },
  apply(views, recorded) {
    const event = asSchedulerEvent(recorded);
    const name = parseSchedulerStream(recorded.stream);
    if (event === undefined || name === undefined) return;
    const rows = views.schedulers;
    const current = rows.status(recorded.stream) ?? initial(name, event.at);
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
    rows.save(recorded.stream, name.episodeId, next);
  },
};

/** Every scheduler seen, by participant then policy; narrowed to an episode, a participant, or both, when given. */
export const listSchedulers = (views: { readonly schedulers: SchedulersReads }, filter: SchedulerFilter = {}): readonly SchedulerStatus[] =>
  views.schedulers.list(filter);

/** Every episode with a scheduler (so with an attempt) in the store, in the order each first appeared. */
export const listEpisodes = (views: { readonly schedulers: SchedulersReads }): readonly string[] => views.schedulers.episodes();
