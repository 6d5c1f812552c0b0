// What the spec's harness modules (plain JavaScript, no import of the engine, as a user's would be) send
// through a port for the example's portal-client tool: the request, a tool's success, the outer result.
export const PORTAL_CLIENT = {
  tool_affordance_address: 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client',
  action_contract_address: 'participant.action-contract.probe-customer-portal-login',
  observation_boundary_address: 'participant.observation-boundary.participant-view',
  target_addresses: ['provision.node.customer-portal.service.http'],
};

/** An admission request for one portal-client call in the port's invocation. */
export const portalToolRequest = (port, toolCallId) => ({
  tool_call_id: toolCallId,
  invocation_action_instance_id: port.invocation_action_instance_id,
  participant_address: port.participant_address,
  episode_id: port.episode_id,
  participant_implementation_ref: port.participant_implementation_ref,
  execution_scope_ref: port.execution_scope_ref,
  execution_generation: port.execution_generation,
  ...PORTAL_CLIENT,
});

/** The tool's success, to complete the admitted action with. */
export const succeededToolResult = (port, actionInstanceId) => ({
  status: 'succeeded',
  participant_address: port.participant_address,
  episode_id: port.episode_id,
  action_instance_id: actionInstanceId,
  action_contract_address: PORTAL_CLIENT.action_contract_address,
  observation_point: port.observation_point,
});

/** The invocation's own result, with `status`. */
export const outerResult = (request, status) => ({
  status,
  participant_address: request.participant_address,
  episode_id: request.episode_id,
  action_instance_id: request.action_instance_id,
  action_contract_address: request.action_contract_address,
  observation_point: request.observation_point,
});
