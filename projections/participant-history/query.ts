import type { Database } from 'better-sqlite3';
import type { EventStore } from '../../domain/ports/event-store';
import type { BehaviorHistoryEvent, InvocationToolContext } from '../../domain/invocation';
import { readProjectionCheckpoint } from '../runner';
import { HISTORY_TABLE, participantHistoryProjection } from './projection';
import { renderHistory, type HistoryIndexRow, type HistoryUnavailable, type RenderedHistory } from './render';

/** A behavior event as a participant history view embeds it: participant and episode are the view's. */
export interface HistoryViewBehaviorEvent {
  readonly event_type: BehaviorHistoryEvent['event_type'];
  readonly timestamp: string;
  readonly action_instance_id: string;
  readonly action_contract_address: string;
  readonly lifecycle_phase: BehaviorHistoryEvent['lifecycle_phase'];
  readonly phase_realization: BehaviorHistoryEvent['phase_realization'];
  readonly actor_provenance: string | null;
  readonly state_transition_kind: string | null;
  readonly post_state_digest: string | null;
  readonly observation_boundary_address: string | null;
  readonly observation_status: BehaviorHistoryEvent['observation_status'];
  readonly action_result: BehaviorHistoryEvent['action_result'];
  readonly details: BehaviorHistoryEvent['details'];
  readonly invocation_tool_context?: InvocationToolContext;
}

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

export type HistoryFilter = {
  readonly participant?: string;
  readonly episode?: string;
  readonly invocation?: string;
};

const tableExists = (views: Database): boolean =>
  views.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(HISTORY_TABLE) !== undefined;

/** The index rows of the closed invocations, in the order they closed, optionally narrowed. */
const indexRows = (views: Database, filter: HistoryFilter): HistoryIndexRow[] => {
  if (!tableExists(views)) return [];
  const clauses: string[] = [];
  const values: string[] = [];
  if (filter.participant !== undefined) {
    clauses.push('participant_address = ?');
    values.push(filter.participant);
  }
  if (filter.episode !== undefined) {
    clauses.push('episode_id = ?');
    values.push(filter.episode);
  }
  if (filter.invocation !== undefined) {
    clauses.push('invocation_action_instance_id = ?');
    values.push(filter.invocation);
  }
  const where = clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`;
  const rows = views
    .prepare(`SELECT participant_address, episode_id, invocation_action_instance_id, closing_revision FROM ${HISTORY_TABLE}${where} ORDER BY seq`)
    .raw(true)
    .all(...values) as [participant: string, episode: string, invocation: string, closingRevision: number][];
  return rows.map(([participant, episode, invocation, closingRevision]) => ({ participant, episode, invocation, closingRevision }));
};

/**
 * The history of the closed invocations, in the order they closed, optionally narrowed: the view's
 * index says which invocations, and each one's history is rendered from its stream in `store` (an
 * invocation that closed with no settled tool action and no valid result renders none). When a stream
 * cannot be read or does not match the index, `history_unavailable` says which and what to do.
 */
export const storedHistory = (views: Database, store: EventStore, filter: HistoryFilter = {}): Promise<RenderedHistory> =>
  renderHistory(store, indexRows(views, filter));

const toViewEvent = (event: BehaviorHistoryEvent): HistoryViewBehaviorEvent => {
  const base = {
    event_type: event.event_type,
    timestamp: event.timestamp,
    action_instance_id: event.action_instance_id,
    action_contract_address: event.action_contract_address,
    lifecycle_phase: event.lifecycle_phase,
    phase_realization: event.phase_realization,
    actor_provenance: event.actor_provenance,
    state_transition_kind: event.state_transition_kind,
    post_state_digest: event.post_state_digest,
    observation_boundary_address: event.observation_boundary_address,
    observation_status: event.observation_status,
    action_result: event.action_result,
    details: event.details,
  };
  return event.invocation_tool_context === undefined ? base : { ...base, invocation_tool_context: event.invocation_tool_context };
};

/** The participant's history in one episode, as far as the projection has caught up. */
export const participantHistoryView = async (
  views: Database,
  store: EventStore,
  participant: string,
  episode: string,
  options: { readonly generatedAt?: string } = {},
): Promise<ParticipantHistoryView | HistoryUnavailable> => {
  const checkpoint = readProjectionCheckpoint(views, participantHistoryProjection.name);
  const history = await storedHistory(views, store, { participant, episode });
  if (history.kind === 'history_unavailable') return history;
  return {
    view_id: `participant-history:${participant}:${episode}`,
    participant_address: participant,
    episode_id: episode,
    generated_at: options.generatedAt ?? new Date().toISOString(),
    source_snapshot_ref: `event-store:position:${checkpoint === undefined ? 'none' : checkpoint.toString()}`,
    visibility_projection_ref: VISIBILITY_PROJECTION_REF,
    completeness: 'complete',
    behavior_history: history.events.map(toViewEvent),
  };
};
