import type * as t from 'io-ts';
import { ActionResultCodec, TERMINAL_TOOL_STATUSES, evidenceRefsOf, type ActionResult } from './action-result';
import { describeValidationError } from './decode-errors';
import { admissionIndexOf } from './admission-index';
import { refusal, type Refusal } from './refusal-codes';
import { identityMismatchOf, preconditionDefect } from './result-identity';
import type { DispatchedToolAction, OpenedInvocation, ToolActionRecord } from './state';

/**
 * The rules of the calls that follow an admission (dispatch, complete, report unknown, cancel,
 * resolve): one function per refusal code; `state_conflict` is in state-conflicts.ts.
 */

export const actionUnknown = (state: OpenedInvocation, actionInstanceId: string): ToolActionRecord | Refusal => {
  const position = state.positionByActionId.get(actionInstanceId);
  const record = position === undefined ? undefined : state.toolActions[position];
  return record ?? refusal('action_unknown', `no tool action ${actionInstanceId} was admitted in this invocation`);
};

const declaredEvidence = (state: OpenedInvocation, action: DispatchedToolAction): ReadonlySet<string> => {
  const declared = new Set<string>();
  const index = admissionIndexOf(state);
  const boundary = index.boundaryEvidence.get(action.request.observation_boundary_address);
  if (boundary !== undefined) for (const ref of boundary) declared.add(ref);
  const offer = index.offersById.get(action.offerBindingId);
  if (offer !== undefined) for (const ref of offer.evidence_refs) declared.add(ref);
  return declared;
};

const outcomeDefect = (state: OpenedInvocation, action: DispatchedToolAction, result: ActionResult): string | undefined => {
  if (!TERMINAL_TOOL_STATUSES.has(result.status)) {
    return `status ${result.status} is not terminal (succeeded, failed, partial_success or rejected)`;
  }
  const mismatch = identityMismatchOf(result, state.portValues, action.actionInstanceId, action.request.action_contract_address);
  if (mismatch !== undefined) {
    const sent = result[mismatch.field];
    return mismatch.field === 'observation_point'
      ? `observation_point ${sent} is foreign to this invocation (${mismatch.expected})`
      : `${mismatch.field} ${sent} is not ${mismatch.expected}`;
  }
  const declared = declaredEvidence(state, action);
  const { withheldRefs } = admissionIndexOf(state);
  for (const ref of evidenceRefsOf(result)) {
    if (withheldRefs.has(ref)) return `evidence ref ${ref} is withheld by the exposure policy`;
    if (!declared.has(ref)) return `evidence ref ${ref} is not declared by the boundary or the offer`;
  }
  return preconditionDefect(result);
};

/**
 * A completed outcome must be well formed, terminal, about this action, carry only declared evidence,
 * and hold precondition results scoped to it that do not fail open (as the outer result's must).
 */
export const outcomeInvalid = (
  state: OpenedInvocation,
  action: DispatchedToolAction,
  raw: unknown,
): ActionResult | Refusal => {
  const decoded = ActionResultCodec.decode(raw);
  const defect =
    decoded._tag === 'Left'
      ? `the outcome is not a ParticipantActionResultModel (${describeFirst(decoded.left)})`
      : outcomeDefect(state, action, decoded.right);
  if (defect === undefined && decoded._tag === 'Right') return decoded.right;
  return refusal('outcome_invalid', `${defect ?? 'invalid outcome'}; the action stays dispatched: report unknown instead`);
};

const describeFirst = (errors: t.Errors): string => {
  const first = errors[0];
  return first === undefined ? 'no detail' : describeValidationError(first);
};
