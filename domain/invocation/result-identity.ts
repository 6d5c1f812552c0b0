import type { ActionResult } from './action-result';
import type { InvocationPortValues } from './port-values';

/**
 * The identity a participant action result must carry: the port's participant, episode and
 * observation point, and the action it is about (a tool action's outcome, or the invocation's outer
 * result). One check for both; each caller words its own sentence.
 */
export interface IdentityMismatch {
  readonly field: 'participant_address' | 'episode_id' | 'action_instance_id' | 'action_contract_address' | 'observation_point';
  /** The value the port expected in that field. */
  readonly expected: string;
}

/** The first identity field of the result that is not the expected value, or undefined when all are. */
export const identityMismatchOf = (
  result: ActionResult,
  port: InvocationPortValues,
  actionInstanceId: string,
  actionContractAddress: string,
): IdentityMismatch | undefined => {
  if (result.participant_address !== port.participant_address) return { field: 'participant_address', expected: port.participant_address };
  if (result.episode_id !== port.episode_id) return { field: 'episode_id', expected: port.episode_id };
  if (result.action_instance_id !== actionInstanceId) return { field: 'action_instance_id', expected: actionInstanceId };
  if (result.action_contract_address !== actionContractAddress) {
    return { field: 'action_contract_address', expected: actionContractAddress };
  }
  if (result.observation_point !== port.observation_point) return { field: 'observation_point', expected: port.observation_point };
  return undefined;
};
