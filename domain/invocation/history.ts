import type { ActionResult } from './action-result';
import type { InvocationEvent, Settlement } from './events';
import { foldInvocationEvents } from './evolve';
import type { InvocationState, OpenedInvocation, SettledToolAction } from './state';
import { sha256Hex } from '../integrity/chain';

/**
 * The RAES behavior history a closed invocation yields (docs/rules.md, history): one triple per settled
 * tool action in admission order, then the outer action's triple when the invocation returned a valid
 * result. Shapes follow raes/schemas/participant-behavior-history-event-stream-v1.json; tool-action
 * events add `invocation_tool_context` (schemas/invocation-behavior-history-event-stream-v1.json).
 */

export interface InvocationToolContext {
  readonly invocation_action_instance_id: string;
  readonly invocation_action_contract_address: string;
  readonly tool_affordance_address: string;
  readonly tool_call_id: string;
  readonly admission_ordinal: number;
  readonly settlement: Settlement;
  readonly execution_scope_ref: string;
  readonly execution_generation: number;
}

/** How the engine realized a lifecycle phase (RAES RUN-306, ParticipantPhaseRealization). */
export type PhaseRealization =
  | 'observed'
  | 'runtime_mediated'
  | 'externally_supplied'
  | 'opaque'
  | 'unknown'
  | 'not_applicable'
  | 'unsupported';

export type HistoryEventType = 'action_attempted' | 'state_transition_recorded' | 'observation_emitted';

/**
 * A behavior event apart from the participant and episode it belongs to, which a participant history
 * view states once for all its events (projections/participant-history).
 */
export interface BehaviorEventBody {
  readonly event_type: HistoryEventType;
  readonly timestamp: string;
  readonly action_instance_id: string;
  readonly action_contract_address: string;
  readonly lifecycle_phase: 'execution_attempt' | 'state_update_commit' | 'observation_emission';
  /** RAES requires it wherever lifecycle_phase is set (RUN-306). */
  readonly phase_realization: PhaseRealization;
  readonly actor_provenance: string | null;
  readonly state_transition_kind: string | null;
  readonly post_state_digest: string | null;
  readonly observation_boundary_address: string | null;
  readonly observation_status: 'terminal' | 'orphaned_action' | null;
  readonly action_result: ActionResult | null;
  readonly details: { readonly evidence_refs?: readonly string[] };
  /** Present on tool-action events only. */
  readonly invocation_tool_context?: InvocationToolContext;
}

export interface BehaviorHistoryEvent extends BehaviorEventBody {
  readonly participant_address: string;
  readonly episode_id: string;
}

/** The event without its participant and episode; the context, when it has one, stays last. */
export const behaviorEventBody = (event: BehaviorEventBody): BehaviorEventBody => {
  const body: Writable<BehaviorEventBody> = {
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
  if (event.invocation_tool_context !== undefined) body.invocation_tool_context = event.invocation_tool_context;
  return body;
};

type Writable<T> = { -readonly [K in keyof T]: T[K] };

const sha256 = (text: string): string => `sha256:${sha256Hex(text)}`;

/** Each digest chains the previous one, so it names the whole state after the action. */
const nextDigest = (previous: string, actionInstanceId: string, result: ActionResult): string =>
  sha256(
    JSON.stringify([
      previous,
      actionInstanceId,
      result.status,
      result.failure_class ?? null,
      result.evidence_refs ?? [],
    ]),
  );

/**
 * RAES requires precondition results on every participant action result. A result that states none
 * gets the one the engine verified before it recorded the result: for the outer result, that the
 * invocation was active; for a tool action's, that the engine admitted the action (its affordance,
 * boundary, targets, offer and limits). It is scoped to the result.
 */
const withVerifiedPrecondition = (result: ActionResult, preconditionId: string): ActionResult => {
  if (result.preconditions !== undefined && result.preconditions.length > 0) return result;
  // Copied member by member, not spread: spread copies of these results cost an audit of 1M events
  // about 90 MB more peak RSS and a quarter more time (their garbage reached the old generation).
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(result)) copy[key] = result[key as keyof ActionResult];
  copy.preconditions = verifiedPreconditions(result, preconditionId);
  return copy as ActionResult;
};

type ResultScope = Pick<ActionResult, 'participant_address' | 'episode_id' | 'action_contract_address' | 'observation_point'>;

const verifiedPreconditions = (scope: ResultScope, preconditionId: string): NonNullable<ActionResult['preconditions']> => [
  {
    precondition_id: preconditionId,
    precondition_class: 'realization',
    status: 'satisfied',
    participant_address: scope.participant_address,
    episode_id: scope.episode_id,
    action_contract_address: scope.action_contract_address,
    observation_point: scope.observation_point,
  },
];

/** The precondition the engine itself checked before it accepted the outer result: the invocation was active. */
export const INVOCATION_ACTIVE_PRECONDITION_ID = 'invocation-active';

/** The precondition the engine itself checked before it recorded a tool action's outcome: it admitted the action. */
export const TOOL_ACTION_ADMITTED_PRECONDITION_ID = 'tool-action-admitted';

/**
 * The failure class of a withheld tool action's result: admitted, it was stopped before it ran
 * (cancelled, its invocation returned, or the engine restarted). RAES requires a failure class on
 * every withheld, failed, rejected, partial_success or unknown result.
 */
export const WITHHELD_FAILURE_CLASS = 'interrupted';

/**
 * The typed outcome a settled tool action records: its own when completed, else one stated for it
 * (withheld: failure class `interrupted`; indeterminate: status and failure class `unknown`); either
 * way with a precondition result (see withVerifiedPrecondition).
 */
const toolActionResult = (state: OpenedInvocation, action: SettledToolAction): ActionResult => {
  const settlement = action.settlement;
  if (settlement.kind === 'completed') return withVerifiedPrecondition(settlement.actionResult, TOOL_ACTION_ADMITTED_PRECONDITION_ID);
  const indeterminate = settlement.kind === 'indeterminate';
  const result: Writable<ActionResult> = {
    status: indeterminate ? 'unknown' : 'withheld',
    participant_address: state.portValues.participant_address,
    episode_id: state.portValues.episode_id,
    action_instance_id: action.actionInstanceId,
    action_contract_address: action.request.action_contract_address,
    observation_point: state.portValues.observation_point,
    failure_class: indeterminate ? 'unknown' : WITHHELD_FAILURE_CLASS,
  };
  result.preconditions = verifiedPreconditions(result, TOOL_ACTION_ADMITTED_PRECONDITION_ID);
  const reason = settlement.reason;
  if (reason.length > 0) result.diagnostics = [reason];
  return result;
};

const evidenceDetails = (result: ActionResult): BehaviorHistoryEvent['details'] =>
  result.evidence_refs === undefined || result.evidence_refs.length === 0 ? {} : { evidence_refs: result.evidence_refs };

interface TripleInput {
  readonly actionInstanceId: string;
  readonly actionContractAddress: string;
  readonly boundary: string;
  readonly attemptedAt: string;
  readonly settledAt: string;
  readonly transitionKind: string;
  readonly observationStatus: 'terminal' | 'orphaned_action';
  readonly result: ActionResult;
  readonly digest: string;
  readonly context: InvocationToolContext | undefined;
  /** Who produced the observed result: the engine's tool port, or the participant returning it. */
  readonly observationRealization: PhaseRealization;
}

const triple = (state: OpenedInvocation, input: TripleInput): BehaviorHistoryEvent[] => {
  const participant = state.portValues.participant_address;
  const episode = state.portValues.episode_id;
  // The context goes on last, on the events just built: no copy of each event to add it.
  const withContext = (event: Writable<BehaviorHistoryEvent>): BehaviorHistoryEvent => {
    if (input.context !== undefined) event.invocation_tool_context = input.context;
    return event;
  };
  return [
    withContext({
      event_type: 'action_attempted',
      timestamp: input.attemptedAt,
      participant_address: participant,
      episode_id: episode,
      action_instance_id: input.actionInstanceId,
      action_contract_address: input.actionContractAddress,
      lifecycle_phase: 'execution_attempt',
      phase_realization: 'runtime_mediated',
      actor_provenance: state.outerAction.actor_provenance,
      state_transition_kind: null,
      post_state_digest: null,
      observation_boundary_address: null,
      observation_status: null,
      action_result: null,
      details: {},
    }),
    withContext({
      event_type: 'state_transition_recorded',
      timestamp: input.settledAt,
      participant_address: participant,
      episode_id: episode,
      action_instance_id: input.actionInstanceId,
      action_contract_address: input.actionContractAddress,
      lifecycle_phase: 'state_update_commit',
      phase_realization: 'runtime_mediated',
      actor_provenance: null,
      state_transition_kind: input.transitionKind,
      post_state_digest: input.digest,
      observation_boundary_address: null,
      observation_status: null,
      action_result: null,
      details: {},
    }),
    withContext({
      event_type: 'observation_emitted',
      timestamp: input.settledAt,
      participant_address: participant,
      episode_id: episode,
      action_instance_id: input.actionInstanceId,
      action_contract_address: input.actionContractAddress,
      lifecycle_phase: 'observation_emission',
      phase_realization: input.observationRealization,
      actor_provenance: null,
      state_transition_kind: null,
      post_state_digest: input.digest,
      observation_boundary_address: input.boundary,
      observation_status: input.observationStatus,
      action_result: input.result,
      details: evidenceDetails(input.result),
    }),
  ];
};

const historyOfClosed = (state: OpenedInvocation): readonly BehaviorHistoryEvent[] => {
  if (state.lifecycle.status !== 'closed') return [];
  const port = state.portValues;
  const events: BehaviorHistoryEvent[] = [];
  let digest = sha256(port.invocation_action_instance_id);
  for (const action of state.toolActions) {
    if (action.phase !== 'settled') continue;
    const result = toolActionResult(state, action);
    digest = nextDigest(digest, action.actionInstanceId, result);
    const settlement = action.settlement.kind;
    for (const event of triple(state, {
      actionInstanceId: action.actionInstanceId,
      actionContractAddress: action.request.action_contract_address,
      boundary: action.request.observation_boundary_address,
      attemptedAt: action.admittedAt,
      settledAt: action.settledAt,
      transitionKind: `tool-action-${settlement}`,
      observationStatus: settlement === 'indeterminate' ? 'orphaned_action' : 'terminal',
      result,
      digest,
      observationRealization: 'runtime_mediated',
      context: {
        invocation_action_instance_id: port.invocation_action_instance_id,
        invocation_action_contract_address: state.outerAction.action_contract_address,
        tool_affordance_address: action.request.tool_affordance_address,
        tool_call_id: action.toolCallId,
        admission_ordinal: action.admissionOrdinal,
        settlement,
        execution_scope_ref: port.execution_scope_ref,
        execution_generation: port.execution_generation,
      },
    })) {
      events.push(event);
    }
  }
  const closure = state.lifecycle.closure;
  if (closure.outcome === 'returned' && !state.lifecycle.recovered) {
    const result = withVerifiedPrecondition(closure.actionResult, INVOCATION_ACTIVE_PRECONDITION_ID);
    digest = nextDigest(digest, port.invocation_action_instance_id, result);
    for (const event of triple(state, {
      actionInstanceId: port.invocation_action_instance_id,
      actionContractAddress: state.outerAction.action_contract_address,
      boundary: state.outerAction.observation_boundary_address,
      attemptedAt: state.lifecycle.activatedAt ?? state.openedAt,
      settledAt: state.lifecycle.closedAt,
      transitionKind: 'invocation-returned',
      observationStatus: 'terminal',
      result,
      digest,
      observationRealization: 'externally_supplied',
      context: undefined,
    })) {
      events.push(event);
    }
  }
  return events;
};

/**
 * The behavior history of a closed invocation, from its state or its events. An invocation that is
 * not closed yet has no history: tool history commits with the enclosing scheduler operation.
 */
export const invocationHistory = (
  source: InvocationState | readonly InvocationEvent[],
): readonly BehaviorHistoryEvent[] => {
  const state = Array.isArray(source) ? foldInvocationEvents(source) : (source as InvocationState);
  return state.status === 'opened' ? historyOfClosed(state) : [];
};
