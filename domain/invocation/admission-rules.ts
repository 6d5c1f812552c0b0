import type { ExecutionOffer } from './admission-context';
import { admissionIndexOf, bindingsFor, offersFor, type IndexedBinding, type IndexedOffer } from './admission-index';
import { refusal, type Refusal } from './refusal-codes';
import type { InvocationState, OpenedInvocation, ToolActionRecord } from './state';
import { ToolActionRequestCodec, sameToolActionRequest, toolCallIdProblem, type ToolActionRequest } from './tool-action-request';

/**
 * The admission rules (docs/rules.md, admission rule 1 onward), one function per refusal code, in rule order. Each
 * returns its refusal, or undefined when the rule holds. Rule 11 (`ledger_unavailable`) belongs to the
 * command handler: only the store knows whether the admission was retained.
 */

// Rule 1: the invocation is open.
/** The opened invocation once dispatch began (it may be closed: rule 1's other code decides that). */
export const invocationInactive = (state: InvocationState): OpenedInvocation | Refusal =>
  state.status === 'unopened' || state.lifecycle.status === 'inactive'
    ? refusal('invocation_inactive', 'the invocation has not begun dispatch; its port is not active yet')
    : state;

const INVOCATION_CLOSED: Refusal = Object.freeze(refusal('invocation_closed', 'the invocation has returned; its port is closed'));

export const invocationClosed = (state: InvocationState): Refusal | undefined =>
  state.status === 'opened' && state.lifecycle.status === 'closed' ? INVOCATION_CLOSED : undefined;

/**
 * Rule 1's closing: the invocation has returned from the moment its admitAction returned or threw,
 * before InvocationClosed is written (a failing store may not write it yet), so every port call from
 * then on is closed without waiting for the close to be folded in.
 */
export const invocationReturned = (dispatchEnded: boolean): Refusal | undefined => (dispatchEnded ? INVOCATION_CLOSED : undefined);

// Rule 2: the request decodes.
export const requestInvalid = (raw: unknown): ToolActionRequest | Refusal => {
  const decoded = ToolActionRequestCodec.decode(raw);
  if (decoded._tag === 'Right') {
    const problem = toolCallIdProblem(decoded.right.tool_call_id);
    return problem === undefined ? decoded.right : refusal('request_invalid', problem);
  }
  const first = decoded.left[0];
  return refusal('request_invalid', first?.message ?? 'the request is not a tool action request');
};


/**
 * Rule 3: a known tool_call_id. The original record means: same request, a replay, answered with the
 * original decision.
 */
export const requestConflict = (
  request: ToolActionRequest,
  state: OpenedInvocation,
): ToolActionRecord | Refusal | undefined => {
  const position = state.positionByToolCallId.get(request.tool_call_id);
  if (position === undefined) return undefined;
  const original = state.toolActions[position];
  if (original !== undefined && sameToolActionRequest(original.request, request)) return original;
  return refusal(
    'request_conflict',
    `tool_call_id ${request.tool_call_id} was already admitted with a different request; the original record stays`,
  );
};

// Rule 4: identities and generation equal the port values.
export const identityMismatch = (request: ToolActionRequest, state: OpenedInvocation): Refusal | undefined => {
  const port = state.portValues;
  const field =
    request.participant_address !== port.participant_address
      ? 'participant_address'
      : request.episode_id !== port.episode_id
        ? 'episode_id'
        : request.participant_implementation_ref !== port.participant_implementation_ref
          ? 'participant_implementation_ref'
          : request.invocation_action_instance_id !== port.invocation_action_instance_id
            ? 'invocation_action_instance_id'
            : request.execution_scope_ref !== port.execution_scope_ref
              ? 'execution_scope_ref'
              : undefined;
  return field === undefined
    ? undefined
    : refusal('identity_mismatch', `${field} ${String(request[field])} is not the port's ${String(port[field])}`);
};

export const staleGeneration = (request: ToolActionRequest, state: OpenedInvocation): Refusal | undefined =>
  request.execution_generation !== state.portValues.execution_generation
    ? refusal(
        'stale_generation',
        `execution_generation ${request.execution_generation} is not the port's ${state.portValues.execution_generation}`,
      )
    : undefined;

// Rule 5: exactly one compiled affordance binding matches affordance, action and participant.
export const affordanceUnbound = (request: ToolActionRequest, state: OpenedInvocation): IndexedBinding | Refusal => {
  const matches = bindingsFor(
    admissionIndexOf(state),
    request.tool_affordance_address,
    request.action_contract_address,
    request.participant_address,
  );
  if (matches !== undefined && matches.length === 1 && matches[0] !== undefined) return matches[0];
  return refusal(
    'affordance_unbound',
    `${matches === undefined ? 'no' : matches.length} affordance bindings match ${request.tool_affordance_address} ` +
      `with ${request.action_contract_address} for ${request.participant_address}; exactly one must`,
  );
};

// Rule 6: the boundary and every target belong to the binding.
export const boundaryUnbound = (request: ToolActionRequest, binding: IndexedBinding): Refusal | undefined =>
  binding.boundaries.has(request.observation_boundary_address)
    ? undefined
    : refusal(
        'boundary_unbound',
        `observation boundary ${request.observation_boundary_address} is not bound to ${request.tool_affordance_address}`,
      );

export const targetUnbound = (request: ToolActionRequest, binding: IndexedBinding): Refusal | undefined => {
  for (const target of request.target_addresses) {
    if (!binding.targets.has(target)) {
      return refusal('target_unbound', `target ${target} is not bound to ${request.tool_affordance_address}`);
    }
  }
  return undefined;
};

// Rule 7: the action has no shared-time binding.
export const sharedTimeBound = (request: ToolActionRequest, state: OpenedInvocation): Refusal | undefined =>
  admissionIndexOf(state).sharedTimeBoundActions.has(request.action_contract_address)
    ? refusal(
        'shared_time_bound',
        `${request.action_contract_address} has a shared-time binding and cannot run as a tool action`,
      )
    : undefined;

const covers = (offer: IndexedOffer, targets: readonly string[]): boolean => {
  for (const target of targets) if (!offer.targets.has(target)) return false;
  return true;
};

// Rule 8: exactly one offer covers the action, the implementation and the targets.
export const offerUnmatched = (request: ToolActionRequest, state: OpenedInvocation): ExecutionOffer | Refusal => {
  const candidates = offersFor(admissionIndexOf(state), request.action_contract_address, request.participant_implementation_ref);
  let covering: ExecutionOffer | undefined;
  let count = 0;
  if (candidates !== undefined) {
    for (const candidate of candidates) {
      if (covers(candidate, request.target_addresses)) {
        covering = candidate.offer;
        count++;
      }
    }
  }
  if (count === 1 && covering !== undefined) return covering;
  return refusal(
    'offer_unmatched',
    `${count} execution-binding offers cover ${request.action_contract_address} for ` +
      `${request.participant_implementation_ref} and the requested targets; exactly one must`,
  );
};

// Rule 9: the policy profile and the engine's crossing policy.
export const policyUnsupported = (state: OpenedInvocation): Refusal | undefined =>
  state.admissionContext.policy_profile === 'participant-autonomous-execution/v3'
    ? refusal('policy_unsupported', 'tool actions are not admitted under participant-autonomous-execution/v3')
    : undefined;

export const crossingPolicyInstalled = (installed: boolean): Refusal | undefined =>
  installed
    ? refusal('crossing_policy_installed', 'a participant-crossing policy is installed in the engine')
    : undefined;

// Rule 10: the limits.
export const limitExhausted = (state: OpenedInvocation): Refusal | undefined => {
  const limit = state.admissionContext.limits.max_tool_actions_per_invocation;
  return state.toolActions.length >= limit
    ? refusal('limit_exhausted', `the invocation already admitted its ${limit} tool actions`)
    : undefined;
};

export const concurrencyExhausted = (state: OpenedInvocation): Refusal | undefined => {
  const limit = state.admissionContext.limits.max_concurrent_tool_actions_per_invocation;
  return state.openCount >= limit
    ? refusal('concurrency_exhausted', `${limit} tool actions are already open; settle one first`)
    : undefined;
};
