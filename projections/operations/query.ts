import type { Database } from 'better-sqlite3';
import { OPERATIONS_TABLE, type OperationKind, type OperationRow } from './projection';

export const OPERATION_DOMAIN = 'participant-invocation-tool-actions/v1';

/**
 * An operation's status: raes/schemas/operation-status-v1.json's fields, extended by
 * schemas/invocation-operation-status-v1.json with what the operation is, its parent and its settlement.
 */
export interface OperationStatus {
  readonly schema_version: 'runtime-operation/v1';
  readonly operation_id: string;
  readonly domain: string;
  /** outer: scheduled | opened | dispatched | settled; tool action: admitted | dispatched | settled. */
  readonly state: string;
  readonly submitted_at: string;
  readonly updated_at: string;
  readonly diagnostics?: readonly { readonly reason: string }[];
  readonly operation_kind: OperationKind;
  readonly parent_operation_id: string | null;
  /** outer: returned | threw | invalid_result; tool action: completed | withheld | indeterminate. */
  readonly settlement: string | null;
  readonly participant_address: string | null;
  readonly episode_id: string | null;
  readonly action_contract_address: string | null;
  readonly tool_call_id: string | null;
  readonly admission_ordinal: number | null;
  /** Outer only: how the scheduler counted the attempt (succeeded | failed | consumed). */
  readonly attempt_outcome: string | null;
  /** Tool actions settled indeterminate, once an operator resolved them. */
  readonly resolution: { readonly effect: string; readonly evidence_ref: string; readonly resolved_at: string } | null;
}

const toStatus = (row: OperationRow): OperationStatus => {
  const status: OperationStatus = {
    schema_version: 'runtime-operation/v1',
    operation_id: row.operation_id!,
    domain: OPERATION_DOMAIN,
    state: row.state!,
    submitted_at: row.submitted_at!,
    updated_at: row.updated_at!,
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

const tableExists = (views: Database): boolean =>
  views.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(OPERATIONS_TABLE) !== undefined;

/** The operation's state as far as the projection has caught up; undefined for an unknown id. */
export const getOperation = (views: Database, operationId: string): OperationStatus | undefined => {
  if (!tableExists(views)) return undefined;
  const row = views.prepare(`SELECT * FROM ${OPERATIONS_TABLE} WHERE operation_id = ?`).get(operationId) as OperationRow | undefined;
  return row === undefined ? undefined : toStatus(row);
};

/** The tool actions of an outer operation, in admission order. */
export const childOperations = (views: Database, parentOperationId: string): readonly OperationStatus[] => {
  if (!tableExists(views)) return [];
  const rows = views
    .prepare(`SELECT * FROM ${OPERATIONS_TABLE} WHERE parent_operation_id = ? ORDER BY admission_ordinal`)
    .all(parentOperationId) as OperationRow[];
  return rows.map(toStatus);
};
