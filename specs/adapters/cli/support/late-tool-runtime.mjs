// A harness module whose tool answers late: it reports the call unknown (a timeout), then the tool's
// success arrives and is completed anyway, which the engine refuses as a late settlement.
const PORTAL_CLIENT = {
  tool_affordance_address: 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client',
  action_contract_address: 'participant.action-contract.probe-customer-portal-login',
  observation_boundary_address: 'participant.observation-boundary.participant-view',
  target_addresses: ['provision.node.customer-portal.service.http'],
};

export const harness = async (request, snapshot, port) => {
  const answer = await port.admitAndDispatch({
    tool_call_id: `late-call-${snapshot.attempt}`,
    invocation_action_instance_id: port.invocation_action_instance_id,
    participant_address: port.participant_address,
    episode_id: port.episode_id,
    participant_implementation_ref: port.participant_implementation_ref,
    execution_scope_ref: port.execution_scope_ref,
    execution_generation: port.execution_generation,
    ...PORTAL_CLIENT,
  });
  if (!answer.admitted) throw new Error(`refused: ${answer.refusal}`);
  await port.reportUnknown(answer.action_instance_id, 'timeout');
  await port.complete(answer.action_instance_id, {
    status: 'succeeded',
    participant_address: port.participant_address,
    episode_id: port.episode_id,
    action_instance_id: answer.action_instance_id,
    action_contract_address: PORTAL_CLIENT.action_contract_address,
    observation_point: port.observation_point,
  });
  return {
    status: 'failed',
    participant_address: request.participant_address,
    episode_id: request.episode_id,
    action_instance_id: request.action_instance_id,
    action_contract_address: request.action_contract_address,
    observation_point: request.observation_point,
  };
};
