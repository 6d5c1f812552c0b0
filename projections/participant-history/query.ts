import type { EventStore } from '../../domain/ports/event-store';
import type { ProjectionCheckpoints } from '../../domain/ports/views';
import { behaviorEventBody, type BehaviorEventBody } from '../../domain/invocation';
import { participantHistoryProjection } from './projection';
import { renderHistory, type HistoryUnavailable, type RenderedHistory } from './render';
import type { HistoryFilter, ParticipantHistoryReads } from './view';

export type { HistoryFilter } from './view';

/** A behavior event as a participant history view embeds it: participant and episode are the view's. */
export type HistoryViewBehaviorEvent = BehaviorEventBody;

/** Shaped after raes/schemas/participant-history-view-v1.json, extended by schemas/invocation-participant-history-view-v1.json. */
export interface ParticipantHistoryView {
  readonly view_id: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly generated_at: string;
  readonly source_snapshot_ref: string;
  readonly visibility_projection_ref: string;
  readonly completeness: 'complete';
  readonly behavior_history: readonly HistoryViewBehaviorEvent[];
}

/** Only closed invocations reach the view: tool history commits with the enclosing operation. */
export const VISIBILITY_PROJECTION_REF = 'participant-invocation-tool-actions/v1:closed-invocations';

/** The views the history queries read: the index, and its checkpoint for the view's snapshot ref. */
export interface ParticipantHistoryReadViews {
  readonly participantHistory: ParticipantHistoryReads;
  readonly checkpoints: Pick<ProjectionCheckpoints, 'read'>;
}

/**
 * The history of the closed invocations, in the order they closed, optionally narrowed: the view's
 * index says which invocations, and each one's history is rendered from its stream in `store` (an
 * invocation that closed with no settled tool action and no valid result renders none). When a stream
 * cannot be read or does not match the index, `history_unavailable` says which and what to do.
 */
export const storedHistory = (
  views: { readonly participantHistory: ParticipantHistoryReads },
  store: EventStore,
  filter: HistoryFilter = {},
): Promise<RenderedHistory> => renderHistory(store, views.participantHistory.closedInvocations(filter));

/** A participant history view without its behavior history: what a streaming writer puts before the events. */
export type ParticipantHistoryViewHeader = Omit<ParticipantHistoryView, 'behavior_history'>;

/** The view's fields but its events, for the participant in the episode, as far as the projection has caught up. */
export const participantHistoryViewHeader = (
  views: Pick<ParticipantHistoryReadViews, 'checkpoints'>,
  participant: string,
  episode: string,
  options: { readonly generatedAt?: string } = {},
): ParticipantHistoryViewHeader => {
  const checkpoint = views.checkpoints.read(participantHistoryProjection.name)?.position ?? undefined;
  return {
    view_id: `participant-history:${participant}:${episode}`,
    participant_address: participant,
    episode_id: episode,
    generated_at: options.generatedAt ?? new Date().toISOString(),
    source_snapshot_ref: `event-store:position:${checkpoint === undefined ? 'none' : checkpoint.toString()}`,
    visibility_projection_ref: VISIBILITY_PROJECTION_REF,
    completeness: 'complete',
  };
};

/** The participant's history in one episode, as far as the projection has caught up. */
export const participantHistoryView = async (
  views: ParticipantHistoryReadViews,
  store: EventStore,
  participant: string,
  episode: string,
  options: { readonly generatedAt?: string } = {},
): Promise<ParticipantHistoryView | HistoryUnavailable> => {
  const header = participantHistoryViewHeader(views, participant, episode, options);
  const history = await storedHistory(views, store, { participant, episode });
  if (history.kind === 'history_unavailable') return history;
  return { ...header, behavior_history: history.events.map(behaviorEventBody) };
};
