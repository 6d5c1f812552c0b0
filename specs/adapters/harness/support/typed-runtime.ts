// A user's harness module in TypeScript: `harness` is called once per invocation with its port.
import type { Harness } from '../../../..';

export const harness: Harness = async (request, snapshot, port) => {
  if (port !== undefined) {
    const request_ = {
      tool_call_id: `typed-call-${snapshot.attempt}`,
      invocation_action_instance_id: port.invocation_action_instance_id,
      participant_address: port.participant_address,
      episode_id: port.episode_id,
      participant_implementation_ref: port.participant_implementation_ref,
      execution_scope_ref: port.execution_scope_ref,
      execution_generation: port.execution_generation,
      tool_affordance_address: 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client',
      action_contract_address: 'participant.action-contract.probe-customer-portal-login',
      observation_boundary_address: 'participant.observation-boundary.participant-view',
      target_addresses: ['provision.node.customer-portal.service.http'],
    };
    const admitted = await port.admit(request_);
    // Admitted and never dispatched: the engine settles it withheld when the invocation returns.
    if (!admitted.admitted) throw new Error(`refused: ${admitted.refusal}`);
  }
  return {
    status: 'failed',
    participant_address: request.participant_address,
    episode_id: request.episode_id,
    action_instance_id: request.action_instance_id,
    action_contract_address: request.action_contract_address,
    observation_point: request.observation_point,
  };
};
