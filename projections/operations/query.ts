import { OPERATION_DOMAIN, type OperationKind, type OperationStatus } from '../../domain/operations';
import type { OperationRow, OperationsReads } from './view';

const toStatus = (row: OperationRow): OperationStatus => {
  const status: OperationStatus = {
    schema_version: 'runtime-operation/v1',
    operation_id: row.operation_id,
    domain: OPERATION_DOMAIN,
    state: row.state,
    submitted_at: row.submitted_at,
    updated_at: row.updated_at,
    operation_kind: row.operation_kind as OperationKind,
    parent_operation_id: row.parent_operation_id,
    settlement: row.settlement,
    participant_address: row.participant_address,
    episode_id: row.episode_id,
    action_contract_address: row.action_contract_address,
    tool_call_id: row.tool_call_id,
    admission_ordinal: row.admission_ordinal,
    attempt_outcome: row.attempt_outcome,
    resolution:
      row.resolution_effect === null
        ? null
        : { effect: row.resolution_effect, evidence_ref: row.resolution_evidence_ref!, resolved_at: row.resolved_at! },
  };
  return row.settlement_reason === null ? status : { ...status, diagnostics: [{ reason: row.settlement_reason }] };
};

/** The views the operations queries read. */
export interface OperationsReadViews {
  readonly operations: OperationsReads;
}

/** The operation's state in the episode as far as the projection has caught up; undefined for an unknown id. */
export const getOperation = (views: OperationsReadViews, episodeId: string, operationId: string): OperationStatus | undefined => {
  const row = views.operations.operation(episodeId, operationId);
  return row === undefined ? undefined : toStatus(row);
};

/** The tool actions of an outer operation of the episode, in admission order. */
export const childOperations = (views: OperationsReadViews, episodeId: string, parentOperationId: string): readonly OperationStatus[] =>
  views.operations.children(episodeId, parentOperationId).map(toStatus);

export { OPERATION_DOMAIN, type OperationStatus };
