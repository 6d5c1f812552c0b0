import * as E from 'fp-ts/Either';
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
import { describeValidationErrorWithoutValue } from './decode-errors';
import type { InvocationClosed, InvocationEvent, ToolActionAdmitted } from './events';
import { leftoverSettlements } from './interrupted';
import type { Refusal } from './refusal-codes';
import type { InvocationState, OpenedInvocation, ToolActionRecord } from './state';
import { invocationStateConflict, stateConflict } from './state-conflicts';
import { actionUnknown, outcomeInvalid } from './tool-action-rules';

export type Decision = E.Either<Refusal, readonly InvocationEvent[]>;

const NO_EVENTS: readonly InvocationEvent[] = [];
const accept = (...events: InvocationEvent[]): Decision => E.right(events);

/** Decisions narrow values as they go; a refusal is the only thing with a code. */
const isRefusal = (value: object): value is Refusal => 'code' in value;

/** Port calls need the port active: refused as closed after return, as inactive before dispatch began. */
const activePort = (state: InvocationState): OpenedInvocation | Refusal => invocationClosed(state) ?? invocationInactive(state);

const openInvocation = (command: OpenInvocation, state: InvocationState): Decision => {
  const unopened = invocationStateConflict(state, 'unopened', 'an invocation opens once');
  if (isRefusal(unopened)) return E.left(unopened);
  return accept({
    type: 'InvocationOpened',
    at: command.at,
    invocation_action_instance_id: command.portValues.invocation_action_instance_id,
    port_values: command.portValues,
    outer_action: command.outerAction,
    admission_context: command.admissionContext,
  });
};

const activateInvocation = (command: ActivateInvocation, state: InvocationState): Decision => {
  const closed = invocationClosed(state);
  if (closed !== undefined) return E.left(closed);
  const inactive = invocationStateConflict(state, 'inactive', 'dispatch begins once, after the invocation opened');
  if (isRefusal(inactive)) return E.left(inactive);
  return accept({
    type: 'InvocationActivated',
    at: command.at,
    invocation_action_instance_id: inactive.portValues.invocation_action_instance_id,
  });
};

/**
 * What admission decided: a refusal, the original record of a replayed tool_call_id, or the new
 * admission's event (told apart by `code`, `phase` and `type`; no wrapper object on the hot path).
 */
type Admission = Refusal | ToolActionRecord | ToolActionAdmitted;

const isReplay = (admission: Admission): admission is ToolActionRecord => 'phase' in admission;

/** The admission rules in order (docs/rules.md, admission rule 1 onward); the first failure is the refusal. */
const decideAdmission = (command: AdmitToolAction | AdmitAndDispatchToolAction, current: InvocationState): Admission => {
  const state = activePort(current);
  if (isRefusal(state)) return state;

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
  const admission = decideAdmission(command, current);
  if (isRefusal(admission)) return E.left(admission);
  return isReplay(admission) ? E.right(NO_EVENTS) : accept(admission);
};

/**
 * Admission, then dispatch of the admitted action, as one decision: the events AdmitToolAction then
 * DispatchToolAction would give in turn. A new admission is always dispatchable (the port is active and
 * the action admitted), so its dispatch needs no second look at the state. A replayed tool_call_id gets
 * the original admission, then dispatch decides on the original action as DispatchToolAction would
 * (already dispatched: state_conflict). A refusal is admission's or, after a replay, dispatch's.
 */
const admitAndDispatchToolAction = (command: AdmitAndDispatchToolAction, current: InvocationState): Decision => {
  const admission = decideAdmission(command, current);
  if (isRefusal(admission)) return E.left(admission);
  if (isReplay(admission)) {
    return dispatchToolAction({ type: 'DispatchToolAction', at: command.at, actionInstanceId: admission.actionInstanceId }, current);
  }
  return accept(admission, {
    type: 'ToolActionDispatched',
    at: command.at,
    invocation_action_instance_id: admission.invocation_action_instance_id,
    action_instance_id: admission.action_instance_id,
  });
};

const dispatchToolAction = (command: DispatchToolAction, current: InvocationState): Decision => {
  const state = activePort(current);
  if (isRefusal(state)) return E.left(state);
  const record = actionUnknown(state, command.actionInstanceId);
  if (isRefusal(record)) return E.left(record);
  const undispatched = stateConflict(record, 'admitted', 'only an admitted, undispatched action can be dispatched');
  if (isRefusal(undispatched)) return E.left(undispatched);
  return accept({
    type: 'ToolActionDispatched',
    at: command.at,
    invocation_action_instance_id: state.portValues.invocation_action_instance_id,
    action_instance_id: undispatched.actionInstanceId,
  });
};

const completeToolAction = (command: CompleteToolAction, current: InvocationState): Decision => {
  const state = activePort(current);
  if (isRefusal(state)) return E.left(state);
  const record = actionUnknown(state, command.actionInstanceId);
  if (isRefusal(record)) return E.left(record);
  const inFlight = stateConflict(record, 'dispatched', 'only a dispatched action can complete; dispatch it first');
  if (isRefusal(inFlight)) return E.left(inFlight);
  const result = outcomeInvalid(state, inFlight, command.result);
  if (isRefusal(result)) return E.left(result);
  return accept({
    type: 'ToolActionSettled',
    at: command.at,
    invocation_action_instance_id: state.portValues.invocation_action_instance_id,
    action_instance_id: record.actionInstanceId,
    settlement: 'completed',
    action_result: result,
  });
};

const reportToolActionUnknown = (command: ReportToolActionUnknown, current: InvocationState): Decision => {
  const state = activePort(current);
  if (isRefusal(state)) return E.left(state);
  const record = actionUnknown(state, command.actionInstanceId);
  if (isRefusal(record)) return E.left(record);
  const inFlight = stateConflict(record, 'dispatched', 'effects can only be unknown after dispatch; cancel it instead');
  if (isRefusal(inFlight)) return E.left(inFlight);
  return accept({
    type: 'ToolActionSettled',
    at: command.at,
    invocation_action_instance_id: state.portValues.invocation_action_instance_id,
    action_instance_id: record.actionInstanceId,
    settlement: 'indeterminate',
    reason: boundedReason(command.reason),
  });
};

const cancelToolAction = (command: CancelToolAction, current: InvocationState): Decision => {
  const state = activePort(current);
  if (isRefusal(state)) return E.left(state);
  const record = actionUnknown(state, command.actionInstanceId);
  if (isRefusal(record)) return E.left(record);
  const undispatched = stateConflict(record, 'admitted', 'after dispatch, complete it or report unknown');
  if (isRefusal(undispatched)) return E.left(undispatched);
  return accept({
    type: 'ToolActionSettled',
    at: command.at,
    invocation_action_instance_id: state.portValues.invocation_action_instance_id,
    action_instance_id: record.actionInstanceId,
    settlement: 'withheld',
    reason: 'cancelled',
  });
};

/** What was left open settles: undispatched -> withheld, dispatched without outcome -> indeterminate. */
const settleLeftovers = (state: OpenedInvocation, at: string, recovered: boolean): InvocationEvent[] =>
  leftoverSettlements(state.portValues.invocation_action_instance_id, state.toolActions, at, recovered);

/**
 * Why the result's precondition results cannot stand (RAES's rules for participant action results):
 * each is scoped to the result, ids are unique, and an unsatisfied or unresolved one fails closed.
 */
const preconditionDefect = (result: ActionResult): string | undefined => {
  const preconditions = result.preconditions ?? [];
  const seen = new Set<string>();
  for (const p of preconditions) {
    if (seen.has(p.precondition_id)) return `precondition ${p.precondition_id} is reported twice`;
    seen.add(p.precondition_id);
    if (p.participant_address !== result.participant_address) return `precondition ${p.precondition_id} participant_address is not the result's`;
    if (p.episode_id !== result.episode_id) return `precondition ${p.precondition_id} episode_id is not the result's`;
    if (p.action_contract_address !== result.action_contract_address) {
      return `precondition ${p.precondition_id} action_contract_address is not the result's`;
    }
    if (p.observation_point !== result.observation_point) return `precondition ${p.precondition_id} observation_point is not the result's`;
    if (p.status !== 'satisfied' && (result.status === 'succeeded' || result.status === 'partial_success')) {
      return `precondition ${p.precondition_id} is ${p.status}, so the result cannot be ${result.status}: unsatisfied or unresolved preconditions fail closed`;
    }
  }
  return undefined;
};

/** Why the outer result cannot stand for this invocation, or undefined when it can. */
const outerResultDefect = (state: OpenedInvocation, result: ActionResult): string | undefined => {
  const port = state.portValues;
  // The expected values are the port's own; what the harness sent is named by field only, never echoed.
  if (result.action_instance_id !== port.invocation_action_instance_id) {
    return `action_instance_id is not this invocation's ${port.invocation_action_instance_id}`;
  }
  if (result.participant_address !== port.participant_address) {
    return `participant_address is not this invocation's ${port.participant_address}`;
  }
  if (result.episode_id !== port.episode_id) return `episode_id is not this invocation's ${port.episode_id}`;
  if (result.action_contract_address !== state.outerAction.action_contract_address) {
    return `action_contract_address is not this invocation's ${state.outerAction.action_contract_address}`;
  }
  if (result.observation_point !== port.observation_point) {
    return `observation_point is not this invocation's ${port.observation_point}`;
  }
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
  if (closed !== undefined) return E.left(closed);
  const state = invocationStateConflict(current, 'opened', 'only an opened invocation closes');
  if (isRefusal(state)) return E.left(state);
  const events = settleLeftovers(state, command.at, false);
  events.push(closedEvent(state, command));
  return E.right(events);
};

const recoverInvocation = (command: RecoverInvocation, current: InvocationState): Decision => {
  const closed = invocationClosed(current);
  if (closed !== undefined) return E.left(closed);
  const state = invocationStateConflict(current, 'opened', 'only an opened invocation is recovered');
  if (isRefusal(state)) return E.left(state);
  const events = settleLeftovers(state, command.at, true);
  events.push({
    type: 'InvocationClosed',
    at: command.at,
    invocation_action_instance_id: state.portValues.invocation_action_instance_id,
    recovered: true,
    outcome: 'threw',
  });
  return E.right(events);
};

/** The operator's call: allowed after close, only for an unresolved indeterminate action. */
const resolveIndeterminateToolAction = (command: ResolveIndeterminateToolAction, current: InvocationState): Decision => {
  const state = invocationStateConflict(current, 'opened', 'only an opened invocation has tool actions');
  if (isRefusal(state)) return E.left(state);
  const record = actionUnknown(state, command.actionInstanceId);
  if (isRefusal(record)) return E.left(record);
  const unresolved = stateConflict(record, 'indeterminate', 'only an unresolved indeterminate action can be resolved');
  if (isRefusal(unresolved)) return E.left(unresolved);
  return accept({
    type: 'ToolActionResolved',
    at: command.at,
    invocation_action_instance_id: state.portValues.invocation_action_instance_id,
    action_instance_id: record.actionInstanceId,
    effect: command.effect,
    evidence_ref: command.evidenceRef,
  });
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
