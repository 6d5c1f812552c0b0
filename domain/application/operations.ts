import type { InvocationState, OpenedInvocation, ToolActionRecord } from '../invocation';
import type { AttemptOutcome, SchedulerEvent } from '../scheduler';
import { OPERATION_DOMAIN, type OperationStatus } from '../operations';

/**
 * Operations at this moment, from an invocation's folded state: the outer scheduler operation and each
 * tool action, a child of it. They answer in the operations view's shape
 * (schemas/invocation-operation-status-v1.json, an extension of RAES's operation-status-v1), so one
 * operation has one shape whether it is read live or from the view.
 */
export type { OperationStatus };

const TOOL_MARK = ':tool=';

/** The outer operation a tool action belongs to, or undefined for an outer id. */
export const parentOperationOf = (operationId: string): string | undefined => {
  const at = operationId.lastIndexOf(TOOL_MARK);
  return at < 0 ? undefined : operationId.slice(0, at);
};

/** How an invocation's closure counts for its attempt; undefined while it is open. */
export const attemptOutcomeOfInvocation = (state: InvocationState): AttemptOutcome | undefined => {
  if (state.status !== 'opened' || state.lifecycle.status !== 'closed') return undefined;
  const lifecycle = state.lifecycle;
  if (lifecycle.closure.outcome !== 'returned' || lifecycle.recovered) return 'consumed';
  return lifecycle.closure.actionResult.status === 'succeeded' ? 'succeeded' : 'failed';
};

const status = (fields: {
  operation_id: string;
  operation_kind: 'outer_action' | 'tool_action';
  state: string;
  submitted_at: string;
  updated_at: string;
  reason: string | null;
  parent_operation_id: string | null;
  settlement: string | null;
  participant_address: string;
  episode_id: string | null;
  action_contract_address: string;
  tool_call_id: string | null;
  admission_ordinal: number | null;
  attempt_outcome: string | null;
  resolution: OperationStatus['resolution'];
}): OperationStatus => {
  const base: OperationStatus = {
    schema_version: 'runtime-operation/v1',
    operation_id: fields.operation_id,
    domain: OPERATION_DOMAIN,
    state: fields.state,
    submitted_at: fields.submitted_at,
    updated_at: fields.updated_at,
    operation_kind: fields.operation_kind,
    parent_operation_id: fields.parent_operation_id,
    settlement: fields.settlement,
    participant_address: fields.participant_address,
    episode_id: fields.episode_id,
    action_contract_address: fields.action_contract_address,
    tool_call_id: fields.tool_call_id,
    admission_ordinal: fields.admission_ordinal,
    attempt_outcome: fields.attempt_outcome,
    resolution: fields.resolution,
  };
  return fields.reason === null ? base : { ...base, diagnostics: [{ reason: fields.reason }] };
};

const outerOperation = (state: OpenedInvocation): OperationStatus => {
  const lifecycle = state.lifecycle;
  const closed = lifecycle.status === 'closed' ? lifecycle : undefined;
  const reason =
    closed === undefined
      ? null
      : closed.closure.outcome === 'invalid_result'
        ? closed.closure.reason
        : closed.recovered
          ? 'recovered after a restart'
          : null;
  return status({
    operation_id: state.portValues.invocation_action_instance_id,
    operation_kind: 'outer_action',
    state: lifecycle.status === 'inactive' ? 'opened' : lifecycle.status === 'active' ? 'dispatched' : 'settled',
    submitted_at: state.openedAt,
    updated_at: closed !== undefined ? closed.closedAt : lifecycle.status === 'active' ? lifecycle.activatedAt : state.openedAt,
    reason,
    parent_operation_id: null,
    settlement: closed === undefined ? null : closed.closure.outcome,
    participant_address: state.portValues.participant_address,
    episode_id: state.portValues.episode_id,
    action_contract_address: state.outerAction.action_contract_address,
    tool_call_id: null,
    admission_ordinal: null,
    attempt_outcome: attemptOutcomeOfInvocation(state) ?? null,
    resolution: null,
  });
};

const toolOperation = (state: OpenedInvocation, record: ToolActionRecord): OperationStatus => {
  const settled = record.phase === 'settled' ? record : undefined;
  return status({
    operation_id: record.actionInstanceId,
    operation_kind: 'tool_action',
    state: record.phase,
    submitted_at: record.admittedAt,
    updated_at:
      settled !== undefined
        ? (settled.resolution?.resolvedAt ?? settled.settledAt)
        : record.phase === 'dispatched'
          ? record.dispatchedAt
          : record.admittedAt,
    reason: settled === undefined || settled.settlement.kind === 'completed' ? null : settled.settlement.reason,
    parent_operation_id: state.portValues.invocation_action_instance_id,
    settlement: settled === undefined ? null : settled.settlement.kind,
    participant_address: record.request.participant_address,
    episode_id: record.request.episode_id,
    action_contract_address: record.request.action_contract_address,
    tool_call_id: record.toolCallId,
    admission_ordinal: record.admissionOrdinal,
    attempt_outcome: null,
    resolution:
      settled?.resolution == null
        ? null
        : { effect: settled.resolution.effect, evidence_ref: settled.resolution.evidenceRef, resolved_at: settled.resolution.resolvedAt },
  });
};

/** The operation `operationId` names in an invocation's state: the outer one or one of its tool actions. */
export const operationInInvocation = (state: InvocationState, operationId: string): OperationStatus | undefined => {
  if (state.status !== 'opened') return undefined;
  if (operationId === state.portValues.invocation_action_instance_id) return outerOperation(state);
  const position = state.positionByActionId.get(operationId);
  const record = position === undefined ? undefined : state.toolActions[position];
  return record === undefined ? undefined : toolOperation(state, record);
};

/**
 * An outer operation that ran without an invocation stream (no claim), from its scheduler's events;
 * those do not carry the episode, so the caller passes it when it knows it.
 */
export const outerOperationOfAttempt = (
  events: readonly SchedulerEvent[],
  operationId: string,
  episodeId: string | null = null,
): OperationStatus | undefined => {
  let started: Extract<SchedulerEvent, { type: 'AttemptStarted' }> | undefined;
  let finished: Extract<SchedulerEvent, { type: 'AttemptFinished' }> | undefined;
  for (const event of events) {
    if (event.type === 'AttemptStarted' && event.action_instance_id === operationId) started = event;
    else if (event.type === 'AttemptFinished' && event.action_instance_id === operationId) finished = event;
  }
  if (started === undefined) return undefined;
  return status({
    operation_id: operationId,
    operation_kind: 'outer_action',
    state: finished === undefined ? 'scheduled' : 'settled',
    submitted_at: started.at,
    updated_at: finished?.at ?? started.at,
    reason: null,
    parent_operation_id: null,
    settlement: null,
    participant_address: started.participant_address,
    episode_id: episodeId,
    action_contract_address: started.action_contract_address,
    tool_call_id: null,
    admission_ordinal: null,
    attempt_outcome: finished?.outcome ?? null,
    resolution: null,
  });
};
