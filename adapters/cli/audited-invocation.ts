import type { BehaviorHistoryEvent } from '../../domain/invocation';
import { invocationEventCodec } from '../../domain/application';
import { invocationDecider, type InvocationState, type ToolActionRecord } from '../../domain/invocation';
import type { RecordedEvent } from '../../domain/ports/event-store';

/** An audited invocation, as the audit prints it: its outer action and its tool actions with their times, settlements and resolutions. */

export interface AuditedToolAction {
  readonly action_instance_id: string;
  readonly admission_ordinal: number;
  readonly tool_call_id: string;
  readonly tool_affordance_address: string;
  readonly action_contract_address: string;
  readonly admitted_at: string;
  readonly dispatched_at: string | null;
  readonly settled_at: string | null;
  readonly settlement: string;
  readonly status: string | null;
  readonly resolution: { readonly effect: string; readonly evidence_ref: string; readonly resolved_at: string } | null;
}

export interface AuditedInvocation {
  readonly invocation_action_instance_id: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly action_contract_address: string;
  /** The outer action's recorded status; null when the invocation threw or was closed by recovery (no outer triple). */
  readonly outer_status: string | null;
  readonly closed_at: string | null;
  readonly tool_actions: readonly AuditedToolAction[];
}

export type Draft = {
  invocation: string;
  participant: string;
  episode: string;
  contract: string;
  outerStatus: string | null;
  closedAt: string | null;
  tools: Map<string, { first: BehaviorHistoryEvent; settledAt: string | null; status: string | null }>;
};

export const draftsOf = (history: readonly BehaviorHistoryEvent[]): Draft[] => {
  const drafts = new Map<string, Draft>();
  for (const event of history) {
    const context = event.invocation_tool_context;
    const invocationId = context?.invocation_action_instance_id ?? event.action_instance_id;
    let draft = drafts.get(invocationId);
    if (draft === undefined) {
      draft = {
        invocation: invocationId,
        participant: event.participant_address,
        episode: event.episode_id,
        contract: context?.invocation_action_contract_address ?? event.action_contract_address,
        outerStatus: null,
        closedAt: null,
        tools: new Map(),
      };
      drafts.set(invocationId, draft);
    }
    if (context === undefined) {
      if (event.event_type === 'observation_emitted') {
        draft.outerStatus = event.action_result?.status ?? null;
        draft.closedAt = event.timestamp;
      }
      continue;
    }
    let tool = draft.tools.get(event.action_instance_id);
    if (tool === undefined) {
      tool = { first: event, settledAt: null, status: null };
      draft.tools.set(event.action_instance_id, tool);
    }
    if (event.event_type === 'observation_emitted') {
      tool.settledAt = event.timestamp;
      tool.status = event.action_result?.status ?? null;
    }
  }
  return [...drafts.values()];
};

export type FoldedInvocation = { readonly kind: 'folded'; readonly state: InvocationState } | { readonly kind: 'unavailable'; readonly reason: string };

/** Folds an invocation's events as its aggregate loads them (each decoded, then evolved). */
export const foldStream = (stream: string, recorded: readonly RecordedEvent[]): FoldedInvocation => {
  let state = invocationDecider.initialState();
  for (const event of recorded) {
    const decoded = invocationEventCodec.fromRecorded(event);
    if (typeof decoded === 'string') return { kind: 'unavailable', reason: `event ${event.revision} of stream '${stream}': ${decoded}` };
    state = invocationDecider.evolve(state, decoded);
  }
  return { kind: 'folded', state };
};

/** A settled action's operator resolution, as the audit shows it. */
export const resolutionOf = (record: ToolActionRecord | undefined): AuditedToolAction['resolution'] => {
  const resolution = record?.phase === 'settled' ? record.resolution : null;
  return resolution === null ? null : { effect: resolution.effect, evidence_ref: resolution.evidenceRef, resolved_at: resolution.resolvedAt };
};

export const auditedInvocation = (draft: Draft, state: InvocationState): AuditedInvocation => {
  const tools: AuditedToolAction[] = [];
  for (const [actionId, tool] of draft.tools) {
    const context = tool.first.invocation_tool_context!;
    const position = state.status === 'opened' ? state.positionByActionId.get(actionId) : undefined;
    const record = position === undefined || state.status !== 'opened' ? undefined : state.toolActions[position];
    const dispatchedAt = record === undefined || record.phase === 'admitted' ? null : record.dispatchedAt;
    tools.push({
      action_instance_id: actionId,
      admission_ordinal: context.admission_ordinal,
      tool_call_id: context.tool_call_id,
      tool_affordance_address: context.tool_affordance_address,
      action_contract_address: tool.first.action_contract_address,
      admitted_at: tool.first.timestamp,
      dispatched_at: dispatchedAt,
      settled_at: tool.settledAt,
      settlement: context.settlement,
      status: tool.status,
      resolution: resolutionOf(record),
    });
  }
  return {
    invocation_action_instance_id: draft.invocation,
    participant_address: draft.participant,
    episode_id: draft.episode,
    action_contract_address: draft.contract,
    outer_status: draft.outerStatus,
    closed_at: draft.closedAt ?? (state.status === 'opened' && state.lifecycle.status === 'closed' ? state.lifecycle.closedAt : null),
    tool_actions: tools,
  };
};
