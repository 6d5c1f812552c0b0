// A harness module whose tool calls stay open until the spec releases them: call n of attempt a runs
// until the file `<RAES_SPEC_RELEASE_DIR>/<a>-<n>` exists. The first call then completes; the second is
// reported unknown (a timeout), so it settles indeterminate and the participant's scheduler stops.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const PORTAL_CLIENT = {
  tool_affordance_address: 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client',
  action_contract_address: 'participant.action-contract.probe-customer-portal-login',
  observation_boundary_address: 'participant.observation-boundary.participant-view',
  target_addresses: ['provision.node.customer-portal.service.http'],
};

const released = async (attempt, call) => {
  const dir = process.env.RAES_SPEC_RELEASE_DIR;
  if (dir === undefined) throw new Error('set RAES_SPEC_RELEASE_DIR to the folder the spec releases tool calls in');
  const file = join(dir, `${attempt}-${call}`);
  while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 20));
};

const admitted = async (port, attempt, call) => {
  const answer = await port.admitAndDispatch({
    tool_call_id: `held-call-${attempt}-${call}`,
    invocation_action_instance_id: port.invocation_action_instance_id,
    participant_address: port.participant_address,
    episode_id: port.episode_id,
    participant_implementation_ref: port.participant_implementation_ref,
    execution_scope_ref: port.execution_scope_ref,
    execution_generation: port.execution_generation,
    ...PORTAL_CLIENT,
  });
  if (!answer.admitted) throw new Error(`refused: ${answer.refusal}`);
  return answer.action_instance_id;
};

export const harness = async (request, snapshot, port) => {
  const first = await admitted(port, snapshot.attempt, 1);
  await released(snapshot.attempt, 1);
  await port.complete(first, {
    status: 'succeeded',
    participant_address: port.participant_address,
    episode_id: port.episode_id,
    action_instance_id: first,
    action_contract_address: PORTAL_CLIENT.action_contract_address,
    observation_point: port.observation_point,
  });
  const second = await admitted(port, snapshot.attempt, 2);
  await released(snapshot.attempt, 2);
  await port.reportUnknown(second, 'timeout');
  return {
    status: 'succeeded',
    participant_address: request.participant_address,
    episode_id: request.episode_id,
    action_instance_id: request.action_instance_id,
    action_contract_address: request.action_contract_address,
    observation_point: request.observation_point,
  };
};
