import type { ViewRows } from '../../domain/ports/views';

/** One operation as the view keeps it; the fold edits it in place before writing it back. */
export interface OperationRow {
  operation_id: string;
  operation_kind: string;
  parent_operation_id: string | null;
  participant_address: string | null;
  /** The episode of the operation's streams; with operation_id, the row's key. */
  episode_id: string;
  action_contract_address: string | null;
  state: string;
  settlement: string | null;
  settlement_reason: string | null;
  submitted_at: string;
  updated_at: string;
  tool_call_id: string | null;
  admission_ordinal: number | null;
  attempt_outcome: string | null;
  resolution_effect: string | null;
  resolution_evidence_ref: string | null;
  resolved_at: string | null;
}

/** What the operations projection writes, and the lookup its fold needs; rows are keyed by (episode, operation id). */
export interface OperationsWrites extends ViewRows {
  /** The stored row, a copy the caller may edit; undefined for an operation not seen yet. */
  find(episodeId: string, operationId: string): OperationRow | undefined;
  insert(row: OperationRow): void;
  /** Replaces the row of `row.episode_id` and `row.operation_id`. */
  update(row: OperationRow): void;
}

/** What the operations queries read. */
export interface OperationsReads {
  /** undefined for an unknown id in the episode, and before the projection's first page. */
  operation(episodeId: string, operationId: string): OperationRow | undefined;
  /** The tool actions of an outer operation of the episode, in admission order. */
  children(episodeId: string, parentOperationId: string): readonly OperationRow[];
}
