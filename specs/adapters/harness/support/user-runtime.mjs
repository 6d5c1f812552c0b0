// A user's harness module, in plain JavaScript with no import of the engine: createRuntime returns a
// participant runtime that keeps each invocation's port and makes one tool call through it.
const PORTAL_CLIENT = {
  tool_affordance_address: 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client',
  action_contract_address: 'participant.action-contract.probe-customer-portal-login',
  observation_boundary_address: 'participant.observation-boundary.participant-view',
  target_addresses: ['provision.node.customer-portal.service.http'],
};

export function createRuntime(context) {
  if (typeof context?.cwd !== 'string') throw new Error('expected a context with cwd');
  const ports = new Map();
  return {
    attachInvocationToolActions(port) {
      ports.set(port.invocation_action_instance_id, port);
    },
    async admitAction(request, snapshot) {
      const port = ports.get(request.action_instance_id);
      const answer = await port.admitAndDispatch({
        tool_call_id: `module-call-${snapshot.attempt}`,
        invocation_action_instance_id: port.invocation_action_instance_id,
        participant_address: port.participant_address,
        episode_id: port.episode_id,
        participant_implementation_ref: port.participant_implementation_ref,
        execution_scope_ref: port.execution_scope_ref,
        execution_generation: port.execution_generation,
        ...PORTAL_CLIENT,
      });
      if (answer.admitted && answer.accepted) {
        await port.complete(answer.action_instance_id, {
          status: 'succeeded',
          participant_address: port.participant_address,
          episode_id: port.episode_id,
          action_instance_id: answer.action_instance_id,
          action_contract_address: PORTAL_CLIENT.action_contract_address,
          observation_point: port.observation_point,
        });
      }
      return {
        status: 'succeeded',
        participant_address: request.participant_address,
        episode_id: request.episode_id,
        action_instance_id: request.action_instance_id,
        action_contract_address: request.action_contract_address,
        observation_point: request.observation_point,
      };
    },
  };
}
