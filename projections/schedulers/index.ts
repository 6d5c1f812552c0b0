import type { RecordedEvent } from '../../domain/ports/event-store';
import { parseSchedulerStream, type SchedulerStreamName } from '../../domain/streams';
import { PageMemory } from '../page-memory';
import type { Projection } from '../runner';
import { asSchedulerEvent } from '../../domain/stored-events';
import type { SchedulerFilter, SchedulerStatus, SchedulersReads, SchedulersWrites } from './view';

export type { SchedulerFilter, SchedulerStatus, SchedulersReads, SchedulersWrites } from './view';

/** The views this projection keeps its rows in. */
export interface SchedulersViews {
  readonly schedulers: SchedulersWrites;
}

/** A scheduler's status as the page folds it: the stored shape, edited in place. */
type Folding = { -readonly [K in keyof SchedulerStatus]: SchedulerStatus[K] };

/** A scheduler's status before its first event; its stream names its episode, policy and participant. */
const initial = (name: SchedulerStreamName, at: string): Folding => ({
  policy_address: name.policyAddress,
  participant_address: name.participantAddress,
  status: 'running',
  stopped_by: null,
  unresolved_action_ids: [],
  attempts_started: 0,
  execution_generation: 0,
  updated_at: at,
});

/** A copy of a saved status to fold, its fields in the saved order (the row's JSON text keeps it). */
const folding = (saved: SchedulerStatus): Folding => ({
  policy_address: saved.policy_address,
  participant_address: saved.participant_address,
  status: saved.status,
  stopped_by: saved.stopped_by,
  unresolved_action_ids: saved.unresolved_action_ids,
  attempts_started: saved.attempts_started,
  execution_generation: saved.execution_generation,
  updated_at: saved.updated_at,
});

/** A scheduler touched by the page in hand: its status and the episode its row belongs to. */
type PageStatus = { readonly episodeId: string; readonly status: Folding };

/** Per views, the schedulers the page in hand changed, by stream, each saved once when the page ends. */
const pageStatuses = new PageMemory<PageStatus>();

const apply = (views: SchedulersViews, recorded: RecordedEvent): void => {
  const event = asSchedulerEvent(recorded);
  if (event === undefined) return;
  const stream = recorded.stream;
  const rows = views.schedulers;
  const page = pageStatuses.of(rows);
  let held = page.get(stream);
  if (held === undefined) {
    const name = parseSchedulerStream(stream);
    if (name === undefined) return;
    const saved = rows.status(stream);
    held = { episodeId: name.episodeId, status: saved === undefined ? initial(name, event.at) : folding(saved) };
    page.set(stream, held);
  }
  const status = held.status;
  switch (event.type) {
    case 'AttemptStarted':
      status.attempts_started = event.attempt;
      status.execution_generation = event.execution_generation;
      break;
    case 'AttemptFinished': {
      const unresolved = new Set(status.unresolved_action_ids);
      for (const id of event.indeterminate_action_ids) unresolved.add(id);
      status.unresolved_action_ids = [...unresolved];
      break;
    }
    case 'SchedulerStopped':
      status.status = 'stopped';
      status.stopped_by = {
        reason: event.reason,
        action_instance_id: event.action_instance_id,
        indeterminate_action_ids: event.indeterminate_action_ids,
        stopped_at: event.at,
      };
      break;
    case 'IndeterminateActionResolved':
      status.unresolved_action_ids = status.unresolved_action_ids.filter((id) => id !== event.action_instance_id);
      break;
    case 'SchedulerRestarted':
      status.status = 'running';
      status.stopped_by = null;
      break;
    case 'ExecutionGenerationAdvanced':
      status.execution_generation = event.execution_generation;
      break;
    case 'SchedulerCheckpointed':
      // The state the events before it left: nothing new to show.
      break;
  }
  status.updated_at = event.at;
};

/** Saves each scheduler the page changed, in the order the page first touched them. */
const endPage = (views: SchedulersViews): void => {
  const rows = views.schedulers;
  const page = pageStatuses.take(rows);
  if (page === undefined) return;
  for (const [stream, held] of page) rows.save(stream, held.episodeId, held.status);
};

export const schedulersProjection: Projection<SchedulersViews> = {
  name: 'schedulers',
  // 2: each row names its episode.
  version: 2,
  setup(views) {
    views.schedulers.setup();
  },
  reset(views) {
    pageStatuses.forget(views.schedulers);
    views.schedulers.reset();
  },
  apply,
  endPage,
  discardPending() {
    pageStatuses.clear();
  },
};

/** Every scheduler seen, by participant then policy; narrowed to an episode, a participant, or both, when given. */
export const listSchedulers = (views: { readonly schedulers: SchedulersReads }, filter: SchedulerFilter = {}): readonly SchedulerStatus[] =>
  views.schedulers.list(filter);

/** Every episode with a scheduler (so with an attempt) in the store, in the order each first appeared. */
export const listEpisodes = (views: { readonly schedulers: SchedulersReads }): readonly string[] => views.schedulers.episodes();
