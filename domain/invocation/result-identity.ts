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

/**
 * Why the result's precondition results cannot stand (RAES's rules for participant action results,
 * for a tool action's outcome and the outer result alike): each is scoped to the result, ids are
 * unique, and an unsatisfied or unresolved one fails closed: the result is not succeeded or
 * partial_success, and it names a failure class.
 */
export const preconditionDefect = (result: ActionResult): string | undefined => {
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
    if (p.status === 'satisfied') continue;
    if (result.status === 'succeeded' || result.status === 'partial_success') {
      return `precondition ${p.precondition_id} is ${p.status}, so the result cannot be ${result.status}: unsatisfied or unresolved preconditions fail closed`;
    }
    if (result.failure_class === undefined || result.failure_class === null) {
      return `precondition ${p.precondition_id} is ${p.status}, so the result must name a failure_class: unsatisfied or unresolved preconditions fail closed`;
    }
  }
  return undefined;
};
