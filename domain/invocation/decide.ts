import { toolActionInstanceId } from '../addresses';
import { ActionResultCodec, type ActionResult } from './action-result';
import {
  affordanceUnbound,
  boundaryUnbound,
  concurrencyExhausted,
  crossingPolicyInstalled,
  identityMismatch,
  invocationClosed,
  invocationInactive,
  invocationReturned,
  limitExhausted,
  offerUnmatched,
  policyUnsupported,
  requestConflict,
  requestInvalid,
  sharedTimeBound,
  staleGeneration,
  targetUnbound,
} from './admission-rules';
import type {
  ActivateInvocation,
  AdmitAndDispatchToolAction,
  AdmitToolAction,
  CancelToolAction,
  CloseInvocation,
  CompleteToolAction,
  DispatchToolAction,
  InvocationCommand,
  OpenInvocation,
  RecoverInvocation,
  ReportToolActionUnknown,
  ResolveIndeterminateToolAction,
} from './commands';
import { boundedReason } from './bounded-text';
import {
  ACTIVATED,
  CLOSED,
  DISPATCHED,
  OPENED,
  RESOLVED,
  SETTLED,
  decided,
  refuse,
  refuseReplayedDispatch,
  replayed,
  type Decision,
  type DecisionStep,
} from './decision';
import { describeValidationErrorWithoutValue } from './decode-errors';
import type { InvocationClosed, InvocationEvent, ToolActionAdmitted } from './events';
import { leftoverSettlements } from './interrupted';
import type { Refusal } from './refusal-codes';
import { identityMismatchOf, preconditionDefect } from './result-identity';
import type { AdmittedToolAction, DispatchedToolAction, InvocationState, OpenedInvocation, ToolActionRecord } from './state';
import { invocationStateConflict, stateConflict, type ToolActionIn } from './state-conflicts';
import { actionUnknown, outcomeInvalid } from './tool-action-rules';

/** Decisions narrow values as they go; a refusal is the only thing with a code. */
const isRefusal = (value: object): value is Refusal => 'code' in value;

/** Port calls need the port active: refused as closed after return, as inactive before dispatch began. */
const activePort = (state: InvocationState): OpenedInvocation | Refusal => invocationClosed(state) ?? invocationInactive(state);

const openInvocation = (command: OpenInvocation, state: InvocationState): Decision => {
  const unopened = invocationStateConflict(state, 'unopened', 'an invocation opens once');
  if (isRefusal(unopened)) return refuse('open', unopened);
  return decided(
    [
      {
        type: 'InvocationOpened',
        at: command.at,
        invocation_action_instance_id: command.portValues.invocation_action_instance_id,
        port_values: command.portValues,
        outer_action: command.outerAction,
        admission_context: command.admissionContext,
      },
    ],
    OPENED,
  );
};

const activateInvocation = (command: ActivateInvocation, state: InvocationState): Decision => {
  const closed = invocationClosed(state);
  if (closed !== undefined) return refuse('activate', closed);
  const inactive = invocationStateConflict(state, 'inactive', 'dispatch begins once, after the invocation opened');
  if (isRefusal(inactive)) return refuse('activate', inactive);
  return decided(
    [{ type: 'InvocationActivated', at: command.at, invocation_action_instance_id: inactive.portValues.invocation_action_instance_id }],
    ACTIVATED,
  );
};

/**
 * What admission decided: a refusal, the original record of a replayed tool_call_id, or the new
 * admission's event (told apart by `code`, `phase` and `type`; no wrapper object on the hot path).
 */
type Admission = Refusal | ToolActionRecord | ToolActionAdmitted;

const isReplay = (admission: Admission): admission is ToolActionRecord => 'phase' in admission;

/**
 * Admission rules 2 to 10 in order (docs/rules.md, admission rule 2 onward), on a port that rule 1
 * (`activePort`) found active; the first failure is the refusal.
 */
const decideAdmission = (command: AdmitToolAction | AdmitAndDispatchToolAction, state: OpenedInvocation): Admission => {
  const request = requestInvalid(command.request);
  if (isRefusal(request)) return request;

  const known = requestConflict(request, state);
  if (known !== undefined) return known;

  const refused = identityMismatch(request, state) ?? staleGeneration(request, state);
  if (refused !== undefined) return refused;

  const binding = affordanceUnbound(request, state);
  if (isRefusal(binding)) return binding;
  const unbound = boundaryUnbound(request, binding) ?? targetUnbound(request, binding) ?? sharedTimeBound(request, state);
  if (unbound !== undefined) return unbound;

  const offer = offerUnmatched(request, state);
  if (isRefusal(offer)) return offer;

  const blocked =
    policyUnsupported(state) ?? crossingPolicyInstalled(command.crossingPolicyInstalled) ?? limitExhausted(state) ?? concurrencyExhausted(state);
  if (blocked !== undefined) return blocked;

  const ordinal = state.toolActions.length + 1;
  return {
    type: 'ToolActionAdmitted',
    at: command.at,
    invocation_action_instance_id: state.portValues.invocation_action_instance_id,
    action_instance_id: toolActionInstanceId(state.portValues.invocation_action_instance_id, ordinal),
    tool_call_id: request.tool_call_id,
    admission_ordinal: ordinal,
    request,
    offer_binding_id: offer.binding_id,
  };
};

const admitToolAction = (command: AdmitToolAction, current: InvocationState): Decision => {
  const state = activePort(current);
  if (isRefusal(state)) return refuse('admission', state);
  const admission = decideAdmission(command, state);
  if (isRefusal(admission)) return refuse('admission', admission);
  if (isReplay(admission)) return replayed(admission);
  return decided([admission], { kind: 'admitted', admission });
};

const DISPATCH_HINT = 'only an admitted, undispatched action can be dispatched';

const dispatchedEvent = (at: string, state: OpenedInvocation, actionInstanceId: string): InvocationEvent => ({
  type: 'ToolActionDispatched',
  at,
  invocation_action_instance_id: state.portValues.invocation_action_instance_id,
  action_instance_id: actionInstanceId,
});

/**
 * Admission, then dispatch of the admitted action, as one decision: the events AdmitToolAction then
 * DispatchToolAction would give in turn. A new admission is always dispatchable (the port is active and
 * the action admitted), so its dispatch needs no second look at the state. A replayed tool_call_id gets
 * the original admission, then dispatch decides on the original action as DispatchToolAction would
 * (already dispatched: state_conflict, refused by the dispatch step with the original record).
 */
const admitAndDispatchToolAction = (command: AdmitAndDispatchToolAction, current: InvocationState): Decision => {
  const state = activePort(current);
  if (isRefusal(state)) return refuse('admission', state);
  const admission = decideAdmission(command, state);
  if (isRefusal(admission)) return refuse('admission', admission);
  if (isReplay(admission)) {
    const undispatched = stateConflict(admission, 'admitted', DISPATCH_HINT);
    if (isRefusal(undispatched)) return refuseReplayedDispatch(undispatched, admission);
    return decided([dispatchedEvent(command.at, state, undispatched.actionInstanceId)], { kind: 'replayed_and_dispatched', original: admission });
  }
  return decided([admission, dispatchedEvent(command.at, state, admission.action_instance_id)], {
    kind: 'admitted_and_dispatched',
    admission,
  });
};

type ToolActionCommand = DispatchToolAction | CompleteToolAction | ReportToolActionUnknown | CancelToolAction;

/**
 * The skeleton of the four calls on an admitted action (dispatch, complete, report unknown, cancel):
 * the port is active, the action known and in the phase the call needs (else `state_conflict` with
 * `hint`), and then `decideOn` decides the rest. `decideOn` is a module-level function, not a closure.
 */
const onToolAction = <C extends ToolActionCommand, P extends 'admitted' | 'dispatched'>(
  step: DecisionStep,
  command: C,
  current: InvocationState,
  phase: P,
  hint: string,
  decideOn: (command: C, state: OpenedInvocation, action: ToolActionIn[P]) => Decision,
): Decision => {
  const state = activePort(current);
  if (isRefusal(state)) return refuse(step, state);
  const record = actionUnknown(state, command.actionInstanceId);
  if (isRefusal(record)) return refuse(step, record);
  const action = stateConflict(record, phase, hint);
  if (isRefusal(action)) return refuse(step, action);
  return decideOn(command, state, action);
};

const dispatchAdmitted = (command: DispatchToolAction, state: OpenedInvocation, action: AdmittedToolAction): Decision =>
  decided([dispatchedEvent(command.at, state, action.actionInstanceId)], DISPATCHED);

const completeDispatched = (command: CompleteToolAction, state: OpenedInvocation, action: DispatchedToolAction): Decision => {
  const result = outcomeInvalid(state, action, command.result);
  if (isRefusal(result)) return refuse('complete', result);
  return decided(
    [
      {
        type: 'ToolActionSettled',
        at: command.at,
        invocation_action_instance_id: state.portValues.invocation_action_instance_id,
        action_instance_id: action.actionInstanceId,
        settlement: 'completed',
        action_result: result,
      },
    ],
    SETTLED,
  );
};

const reportDispatchedUnknown = (command: ReportToolActionUnknown, state: OpenedInvocation, action: DispatchedToolAction): Decision =>
  decided(
    [
      {
        type: 'ToolActionSettled',
        at: command.at,
        invocation_action_instance_id: state.portValues.invocation_action_instance_id,
        action_instance_id: action.actionInstanceId,
        settlement: 'indeterminate',
        reason: boundedReason(command.reason),
      },
    ],
    SETTLED,
  );

const cancelAdmitted = (command: CancelToolAction, state: OpenedInvocation, action: AdmittedToolAction): Decision =>
  decided(
    [
      {
        type: 'ToolActionSettled',
        at: command.at,
        invocation_action_instance_id: state.portValues.invocation_action_instance_id,
        action_instance_id: action.actionInstanceId,
        settlement: 'withheld',
        reason: 'cancelled',
      },
    ],
    SETTLED,
  );

const dispatchToolAction = (command: DispatchToolAction, current: InvocationState): Decision =>
  onToolAction('dispatch', command, current, 'admitted', DISPATCH_HINT, dispatchAdmitted);

const completeToolAction = (command: CompleteToolAction, current: InvocationState): Decision =>
  onToolAction('complete', command, current, 'dispatched', 'only a dispatched action can complete; dispatch it first', completeDispatched);

const reportToolActionUnknown = (command: ReportToolActionUnknown, current: InvocationState): Decision =>
  onToolAction('report_unknown', command, current, 'dispatched', 'effects can only be unknown after dispatch; cancel it instead', reportDispatchedUnknown);

const cancelToolAction = (command: CancelToolAction, current: InvocationState): Decision =>
  onToolAction('cancel', command, current, 'admitted', 'after dispatch, complete it or report unknown', cancelAdmitted);

/** What was left open settles: undispatched -> withheld, dispatched without outcome -> indeterminate. */
const settleLeftovers = (state: OpenedInvocation, at: string, recovered: boolean): InvocationEvent[] =>
  leftoverSettlements(state.portValues.invocation_action_instance_id, state.toolActions, at, recovered);

/** Why the outer result cannot stand for this invocation, or undefined when it can. */
const outerResultDefect = (state: OpenedInvocation, result: ActionResult): string | undefined => {
  const port = state.portValues;
  const mismatch = identityMismatchOf(result, port, port.invocation_action_instance_id, state.outerAction.action_contract_address);
  // The expected values are the port's own; what the harness sent is named by field only, never echoed.
  if (mismatch !== undefined) return `${mismatch.field} is not this invocation's ${mismatch.expected}`;
  return preconditionDefect(result);
};

const closedEvent = (state: OpenedInvocation, command: CloseInvocation): InvocationClosed => {
  const invocationId = state.portValues.invocation_action_instance_id;
  const close = command.close;
  if (close.outcome === 'threw') {
    return { type: 'InvocationClosed', at: command.at, invocation_action_instance_id: invocationId, recovered: false, outcome: 'threw' };
  }
  let reason = close.outcome === 'invalid_result' ? close.reason : undefined;
  if (close.outcome === 'returned') {
    const decoded = ActionResultCodec.decode(close.result);
    if (decoded._tag === 'Right') {
      const defect = outerResultDefect(state, decoded.right);
      if (defect === undefined) {
        return {
          type: 'InvocationClosed',
          at: command.at,
          invocation_action_instance_id: invocationId,
          recovered: false,
          outcome: 'returned',
          action_result: decoded.right,
        };
      }
      reason = defect;
    } else {
      const first = decoded.left[0];
      reason = `not a ParticipantActionResultModel: ${first === undefined ? 'no detail' : describeValidationErrorWithoutValue(first)}`;
    }
  }
  return {
    type: 'InvocationClosed',
    at: command.at,
    invocation_action_instance_id: invocationId,
    recovered: false,
    outcome: 'invalid_result',
    reason: boundedReason(reason ?? 'invalid result'),
  };
};

/**
 * The invocation returned or threw. A returned result that is not a valid outer result for this
 * invocation closes it as `invalid_result` (the attempt is consumed) rather than being refused: the
 * invocation is over either way.
 */
const closeInvocation = (command: CloseInvocation, current: InvocationState): Decision => {
  const closed = invocationClosed(current);
  if (closed !== undefined) return refuse('close', closed);
  const state = invocationStateConflict(current, 'opened', 'only an opened invocation closes');
  if (isRefusal(state)) return refuse('close', state);
  const events = settleLeftovers(state, command.at, false);
  events.push(closedEvent(state, command));
  return decided(events, CLOSED);
};

const recoverInvocation = (command: RecoverInvocation, current: InvocationState): Decision => {
  const closed = invocationClosed(current);
  if (closed !== undefined) return refuse('recover', closed);
  const state = invocationStateConflict(current, 'opened', 'only an opened invocation is recovered');
  if (isRefusal(state)) return refuse('recover', state);
  const events = settleLeftovers(state, command.at, true);
  events.push({
    type: 'InvocationClosed',
    at: command.at,
    invocation_action_instance_id: state.portValues.invocation_action_instance_id,
    recovered: true,
    outcome: 'threw',
  });
  return decided(events, CLOSED);
};

/** The operator's call: allowed after close, only for an unresolved indeterminate action. */
const resolveIndeterminateToolAction = (command: ResolveIndeterminateToolAction, current: InvocationState): Decision => {
  const state = invocationStateConflict(current, 'opened', 'only an opened invocation has tool actions');
  if (isRefusal(state)) return refuse('resolve', state);
  const record = actionUnknown(state, command.actionInstanceId);
  if (isRefusal(record)) return refuse('resolve', record);
  const unresolved = stateConflict(record, 'indeterminate', 'only an unresolved indeterminate action can be resolved');
  if (isRefusal(unresolved)) return refuse('resolve', unresolved);
  return decided(
    [
      {
        type: 'ToolActionResolved',
        at: command.at,
        invocation_action_instance_id: state.portValues.invocation_action_instance_id,
        action_instance_id: record.actionInstanceId,
        effect: command.effect,
        evidence_ref: command.evidenceRef,
      },
    ],
    RESOLVED,
  );
};

/** The port calls: what a harness sends through its port. */
export type PortCommand = AdmitToolAction | AdmitAndDispatchToolAction | ToolActionCommand;

const STEP_OF_PORT_COMMAND: Readonly<Record<PortCommand['type'], DecisionStep>> = {
  AdmitToolAction: 'admission',
  AdmitAndDispatchToolAction: 'admission',
  DispatchToolAction: 'dispatch',
  CompleteToolAction: 'complete',
  ReportToolActionUnknown: 'report_unknown',
  CancelToolAction: 'cancel',
};

/**
 * The decision on a port call once admitAction returned or threw (docs/rules.md, failure row 9):
 * refused `invocation_closed` by its first step, without waiting for InvocationClosed to be written
 * or folded in; undefined while dispatch has not ended (then `decide` decides it on the state).
 */
export const decideAfterDispatchEnded = (command: PortCommand, dispatchEnded: boolean): Decision | undefined => {
  const returned = invocationReturned(dispatchEnded);
  return returned === undefined ? undefined : refuse(STEP_OF_PORT_COMMAND[command.type], returned);
};

export const decide = (command: InvocationCommand, state: InvocationState): Decision => {
  switch (command.type) {
    case 'OpenInvocation':
      return openInvocation(command, state);
    case 'ActivateInvocation':
      return activateInvocation(command, state);
    case 'AdmitToolAction':
      return admitToolAction(command, state);
    case 'AdmitAndDispatchToolAction':
      return admitAndDispatchToolAction(command, state);
    case 'DispatchToolAction':
      return dispatchToolAction(command, state);
    case 'CompleteToolAction':
      return completeToolAction(command, state);
    case 'ReportToolActionUnknown':
      return reportToolActionUnknown(command, state);
    case 'CancelToolAction':
      return cancelToolAction(command, state);
    case 'CloseInvocation':
      return closeInvocation(command, state);
    case 'RecoverInvocation':
      return recoverInvocation(command, state);
    case 'ResolveIndeterminateToolAction':
      return resolveIndeterminateToolAction(command, state);
  }
};
