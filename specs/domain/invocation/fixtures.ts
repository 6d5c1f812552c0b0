import {
  actionContractAddress,
  autonomousPolicyAddress,
  nodeAddress,
  observationBoundaryAddress,
  observationPoint,
  outerActionInstanceId,
  participantAddress,
  serviceAddress,
  toolActionInstanceId,
  toolAffordanceAddress,
  clockAddress,
} from '../../../domain/addresses';
import {
  invocationDecider,
  type ActionResult,
  type AdmissionContext,
  type InvocationCommand,
  type InvocationEvent,
  type InvocationPortValues,
  type OuterAction,
  type ToolActionRequest,
  type InvocationAnswer,
  type InvocationState,
  type Refusal,
} from '../../../domain/invocation';
import { deciderSpecification } from './decider-specification';

/** One small world: a prober participant with one portal-client affordance (the seed's example). */
export const PARTICIPANT = participantAddress('prober');
export const POLICY = autonomousPolicyAddress('participant-behavior');
export const INVOCATION_ID = outerActionInstanceId(POLICY, PARTICIPANT, 1);
export const EPISODE = 'episode-0001';
export const IMPLEMENTATION = 'harness-runtime';
export const OBSERVATION_POINT = observationPoint(clockAddress('shared'), 0, 3);
export const AFFORDANCE = toolAffordanceAddress('participant-behavior', 'portal-client');
export const PROBE_LOGIN = actionContractAddress('probe-customer-portal-login');
export const OUTER_CONTRACT = actionContractAddress('run-harness');
export const VIEW = observationBoundaryAddress('participant-view');
export const HIDDEN_VIEW = observationBoundaryAddress('operator-view');
export const PORTAL_HTTP = serviceAddress('customer-portal', 'http');
export const PORTAL_NODE = nodeAddress('customer-portal');
export const TRANSCRIPT_EVIDENCE = 'evidence.participant-transcript';
export const ACCESS_LOG_EVIDENCE = 'evidence.portal-access-log';
export const CREDENTIALS = 'evidence.customer-credentials';
export const AT = '2026-04-11T10:00:00Z';

export const toolId = (ordinal: number): string => toolActionInstanceId(INVOCATION_ID, ordinal);

export const portValues: InvocationPortValues = {
  invocation_action_instance_id: INVOCATION_ID,
  participant_address: PARTICIPANT,
  episode_id: EPISODE,
  participant_implementation_ref: IMPLEMENTATION,
  execution_scope_ref: POLICY,
  execution_generation: 0,
  observation_point: OBSERVATION_POINT,
};

export const outerAction: OuterAction = {
  action_contract_address: OUTER_CONTRACT,
  observation_boundary_address: VIEW,
  target_addresses: [PORTAL_HTTP],
  actor_provenance: 'participant-implementation:harness-runtime@1.0.0',
};

export const admissionContext = (limits = { perInvocation: 3, concurrent: 2 }): AdmissionContext => ({
  policy_profile: 'participant-autonomous-execution/v1',
  limits: {
    max_tool_actions_per_invocation: limits.perInvocation,
    max_concurrent_tool_actions_per_invocation: limits.concurrent,
  },
  affordance_bindings: [
    {
      tool_affordance_address: AFFORDANCE,
      action_contract_address: PROBE_LOGIN,
      participant_address: PARTICIPANT,
      observation_boundary_addresses: [VIEW],
      target_addresses: [PORTAL_HTTP, PORTAL_NODE],
    },
  ],
  shared_time_bound_actions: [],
  offers: [
    {
      binding_id: 'offer-probe-login',
      action_contract_address: PROBE_LOGIN,
      target_addresses: [PORTAL_HTTP, PORTAL_NODE],
      participant_implementation_ref: IMPLEMENTATION,
      constraint_refs: [],
      evidence_refs: [ACCESS_LOG_EVIDENCE],
      max_action_attempts: 4,
      max_in_flight: 2,
      timeout_seconds: 30,
      max_retries: 0,
    },
  ],
  boundary_evidence_refs: { [VIEW]: [TRANSCRIPT_EVIDENCE] },
  withheld_refs: [CREDENTIALS],
});

export const request = (toolCallId = 'call-1'): ToolActionRequest => ({
  tool_call_id: toolCallId,
  invocation_action_instance_id: INVOCATION_ID,
  participant_address: PARTICIPANT,
  episode_id: EPISODE,
  participant_implementation_ref: IMPLEMENTATION,
  tool_affordance_address: AFFORDANCE,
  action_contract_address: PROBE_LOGIN,
  observation_boundary_address: VIEW,
  target_addresses: [PORTAL_HTTP],
  execution_scope_ref: POLICY,
  execution_generation: 0,
});

export const toolResult = (ordinal: number, status: ActionResult['status'] = 'succeeded'): ActionResult => ({
  status,
  participant_address: PARTICIPANT,
  episode_id: EPISODE,
  action_instance_id: toolId(ordinal),
  action_contract_address: PROBE_LOGIN,
  observation_point: OBSERVATION_POINT,
  evidence_refs: [TRANSCRIPT_EVIDENCE, ACCESS_LOG_EVIDENCE],
});

export const outerResult = (): ActionResult => ({
  status: 'succeeded',
  participant_address: PARTICIPANT,
  episode_id: EPISODE,
  action_instance_id: INVOCATION_ID,
  action_contract_address: OUTER_CONTRACT,
  observation_point: OBSERVATION_POINT,
});

// Events, as the decider writes them.
export const opened = (context: AdmissionContext = admissionContext()): InvocationEvent => ({
  type: 'InvocationOpened',
  at: AT,
  invocation_action_instance_id: INVOCATION_ID,
  port_values: portValues,
  outer_action: outerAction,
  admission_context: context,
});
export const activated: InvocationEvent = { type: 'InvocationActivated', at: AT, invocation_action_instance_id: INVOCATION_ID };
export const admitted = (ordinal: number, req: ToolActionRequest = request(`call-${ordinal}`)): InvocationEvent => ({
  type: 'ToolActionAdmitted',
  at: AT,
  invocation_action_instance_id: INVOCATION_ID,
  action_instance_id: toolId(ordinal),
  tool_call_id: req.tool_call_id,
  admission_ordinal: ordinal,
  request: req,
  offer_binding_id: 'offer-probe-login',
});
export const dispatched = (ordinal: number): InvocationEvent => ({
  type: 'ToolActionDispatched',
  at: AT,
  invocation_action_instance_id: INVOCATION_ID,
  action_instance_id: toolId(ordinal),
});
export const completed = (ordinal: number): InvocationEvent => ({
  type: 'ToolActionSettled',
  at: AT,
  invocation_action_instance_id: INVOCATION_ID,
  action_instance_id: toolId(ordinal),
  settlement: 'completed',
  action_result: toolResult(ordinal),
});
export const withheld = (ordinal: number, reason: 'cancelled' | 'invocation_closed' | 'recovered'): InvocationEvent => ({
  type: 'ToolActionSettled',
  at: AT,
  invocation_action_instance_id: INVOCATION_ID,
  action_instance_id: toolId(ordinal),
  settlement: 'withheld',
  reason,
});
export const indeterminate = (ordinal: number, reason: string): InvocationEvent => ({
  type: 'ToolActionSettled',
  at: AT,
  invocation_action_instance_id: INVOCATION_ID,
  action_instance_id: toolId(ordinal),
  settlement: 'indeterminate',
  reason,
});
export const returned: InvocationEvent = {
  type: 'InvocationClosed',
  at: AT,
  invocation_action_instance_id: INVOCATION_ID,
  recovered: false,
  outcome: 'returned',
  action_result: outerResult(),
};
export const threw: InvocationEvent = {
  type: 'InvocationClosed',
  at: AT,
  invocation_action_instance_id: INVOCATION_ID,
  recovered: false,
  outcome: 'threw',
};

// Commands.
export const open = (context: AdmissionContext = admissionContext()): InvocationCommand => ({
  type: 'OpenInvocation',
  at: AT,
  portValues,
  outerAction,
  admissionContext: context,
});
export const activate: InvocationCommand = { type: 'ActivateInvocation', at: AT };
export const admit = (req: unknown = request(), crossingPolicyInstalled = false): InvocationCommand => ({
  type: 'AdmitToolAction',
  at: AT,
  request: req,
  crossingPolicyInstalled,
});
export const admitAndDispatch = (req: unknown = request(), crossingPolicyInstalled = false): InvocationCommand => ({
  type: 'AdmitAndDispatchToolAction',
  at: AT,
  request: req,
  crossingPolicyInstalled,
});
export const dispatch = (ordinal: number): InvocationCommand => ({ type: 'DispatchToolAction', at: AT, actionInstanceId: toolId(ordinal) });
export const complete = (ordinal: number, result: unknown = toolResult(ordinal)): InvocationCommand => ({
  type: 'CompleteToolAction',
  at: AT,
  actionInstanceId: toolId(ordinal),
  result,
});
export const reportUnknown = (ordinal: number, reason = 'timeout'): InvocationCommand => ({
  type: 'ReportToolActionUnknown',
  at: AT,
  actionInstanceId: toolId(ordinal),
  reason,
});
export const cancel = (ordinal: number): InvocationCommand => ({ type: 'CancelToolAction', at: AT, actionInstanceId: toolId(ordinal) });
export const closeReturned = (result: unknown = outerResult()): InvocationCommand => ({
  type: 'CloseInvocation',
  at: AT,
  close: { outcome: 'returned', result },
});
export const closeThrew: InvocationCommand = { type: 'CloseInvocation', at: AT, close: { outcome: 'threw' } };
export const closeInvalid: InvocationCommand = {
  type: 'CloseInvocation',
  at: AT,
  close: { outcome: 'invalid_result', reason: 'the harness returned no action result' },
};
export const recover: InvocationCommand = { type: 'RecoverInvocation', at: AT };
export const resolve = (ordinal: number, effect: 'happened' | 'absent' = 'absent'): InvocationCommand => ({
  type: 'ResolveIndeterminateToolAction',
  at: AT,
  actionInstanceId: toolId(ordinal),
  effect,
  evidenceRef: 'evidence.operator-review-17',
});

export const spec = deciderSpecification<InvocationCommand, InvocationEvent, InvocationState, Refusal, InvocationAnswer>(invocationDecider);

/** An open, active invocation. */
export const activeInvocation = (context: AdmissionContext = admissionContext()): InvocationEvent[] => [opened(context), activated];
