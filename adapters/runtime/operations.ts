import type { InvocationState, OpenedInvocation, Settlement, ToolActionRecord } from '../../domain/invocation';
import type { SchedulerEvent } from '../../domain/scheduler';

/**
 * Operation status (raes/schemas/operation-status-v1.json) of the outer scheduler operation and of
 * each tool action, a child of it. `parent_operation_id` and `settlement` extend the RAES shape.
 */
export interface OperationStatus {
  readonly schema_version: 'runtime-operation/v1';
  readonly operation_id: string;
  readonly domain: OperationDomain;
  readonly state: OuterOperationState | ToolOperationState;
  readonly submitted_at: string;
  readonly updated_at: string;
  readonly diagnostics: readonly Record<string, string>[];
  readonly parent_operation_id: string | null;
  readonly settlement: Settlement | null;
}

export type OperationDomain = 'participant-autonomous-execution' | 'participant-invocation-tool-action';
/** `started`: the attempt began, no invocation yet; `inactive`: the port is attached, dispatch not begun. */
export type OuterOperationState = 'started' | 'inactive' | 'running' | 'succeeded' | 'failed' | 'consumed';
export type ToolOperationState = 'admitted' | 'dispatched' | 'settled' | 'resolved';

const TOOL_MARK = ':tool=';

/** The outer operation a tool action belongs to, or undefined for an outer id. */
export const parentOperationOf = (operationId: string): string | undefined => {
  const at = operationId.lastIndexOf(TOOL_MARK);
  return at < 0 ? undefined : operationId.slice(0, at);
};

const outerStateOf = (state: OpenedInvocation): OuterOperationState => {
  const lifecycle = state.lifecycle;
  if (lifecycle.status === 'inactive') return 'inactive';
  if (lifecycle.status === 'active') return 'running';
  if (lifecycle.closure.outcome !== 'returned') return 'consumed';
  return lifecycle.closure.actionResult.status === 'succeeded' ? 'succeeded' : 'failed';
};

export const outerOperationOfInvocation = (state: InvocationState): OperationStatus | undefined => {
  if (state.status !== 'opened') return undefined;
  const lifecycle = state.lifecycle;
  const updatedAt =
    lifecycle.status === 'closed' ? lifecycle.closedAt : lifecycle.status === 'active' ? lifecycle.activatedAt : state.openedAt;
  const diagnostics: Record<string, string>[] = [];
  if (lifecycle.status === 'closed' && lifecycle.closure.outcome === 'invalid_result') {
    diagnostics.push({ reason: lifecycle.closure.reason });
  }
  if (lifecycle.status === 'closed' && lifecycle.recovered) diagnostics.push({ reason: 'closed by recovery after a restart' });
  return {
    schema_version: 'runtime-operation/v1',
    operation_id: state.portValues.invocation_action_instance_id,
    domain: 'participant-autonomous-execution',
    state: outerStateOf(state),
    submitted_at: state.openedAt,
    updated_at: updatedAt,
    diagnostics,
    parent_operation_id: null,
    settlement: null,
  };
};

const toolOperation = (state: OpenedInvocation, record: ToolActionRecord): OperationStatus => {
  const diagnostics: Record<string, string>[] = [];
  let operationState: ToolOperationState = record.phase;
  let updatedAt = record.admittedAt;
  let settlement: Settlement | null = null;
  if (record.phase === 'dispatched') updatedAt = record.dispatchedAt;
  if (record.phase === 'settled') {
    updatedAt = record.settledAt;
    settlement = record.settlement.kind;
    if (record.settlement.kind !== 'completed') diagnostics.push({ reason: record.settlement.reason });
    if (record.resolution !== null) {
      operationState = 'resolved';
      updatedAt = record.resolution.resolvedAt;
      diagnostics.push({ resolved_effect: record.resolution.effect, evidence_ref: record.resolution.evidenceRef });
    }
  }
  return {
    schema_version: 'runtime-operation/v1',
    operation_id: record.actionInstanceId,
    domain: 'participant-invocation-tool-action',
    state: operationState,
    submitted_at: record.admittedAt,
    updated_at: updatedAt,
    diagnostics,
    parent_operation_id: state.portValues.invocation_action_instance_id,
    settlement,
  };
};

/** The operation `operationId` names in an invocation's state: the outer one or one of its tool actions. */
export const operationInInvocation = (state: InvocationState, operationId: string): OperationStatus | undefined => {
  if (state.status !== 'opened') return undefined;
  if (operationId === state.portValues.invocation_action_instance_id) return outerOperationOfInvocation(state);
  const position = state.positionByActionId.get(operationId);
  const record = position === undefined ? undefined : state.toolActions[position];
  return record === undefined ? undefined : toolOperation(state, record);
};

/** An outer operation that ran without an invocation stream (no claim), from its scheduler's events. */
export const outerOperationOfAttempt = (events: readonly SchedulerEvent[], operationId: string): OperationStatus | undefined => {
  let submittedAt: string | undefined;
  let updatedAt = '';
  let state: OuterOperationState = 'started';
  for (const event of events) {
    if (event.type === 'AttemptStarted' && event.action_instance_id === operationId) {
      submittedAt = event.at;
      updatedAt = event.at;
    } else if (event.type === 'AttemptFinished' && event.action_instance_id === operationId) {
      updatedAt = event.at;
      state = event.outcome;
    }
  }
  if (submittedAt === undefined) return undefined;
  return {
    schema_version: 'runtime-operation/v1',
    operation_id: operationId,
    domain: 'participant-autonomous-execution',
    state,
    submitted_at: submittedAt,
    updated_at: updatedAt,
    diagnostics: [],
    parent_operation_id: null,
    settlement: null,
  };
};
