/** Operations, the status shape RAES's runtime reports for each outer attempt and each tool action. */

export type OperationKind = 'outer_action' | 'tool_action';

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
