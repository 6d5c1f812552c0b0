import type { OuterActionRequest } from '../../domain/application/participant-runtime';

/**
 * The outer ParticipantActionResultModel of an invocation whose harness is another program (an agent
 * command, a process per invocation): it can only say whether it succeeded, by its exit code.
 */
export const outerResultOf = (request: OuterActionRequest, succeeded: boolean) => ({
  status: succeeded ? 'succeeded' : 'failed',
  participant_address: request.participant_address,
  episode_id: request.episode_id,
  action_instance_id: request.action_instance_id,
  action_contract_address: request.action_contract_address,
  observation_point: request.observation_point,
  ...(succeeded ? {} : { failure_class: 'backend_error' }),
});
