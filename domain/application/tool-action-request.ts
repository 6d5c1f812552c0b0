import type { InvocationPortValues, ToolActionRequest } from '../invocation';

/** The compiled relation a tool call is admitted under. */
export interface ToolActionRelation {
  readonly tool_affordance_address: string;
  readonly action_contract_address: string;
  readonly observation_boundary_address: string;
  readonly target_addresses: readonly string[];
}

/**
 * The admission request of one tool call: the invocation's identity from its port values, the
 * relation the harness maps the tool to, and the caller's tool_call_id. Nothing of the call's
 * arguments belongs here.
 */
export const toolActionRequestFor = (
  port: InvocationPortValues,
  toolCallId: string,
  relation: ToolActionRelation,
): ToolActionRequest => ({
  tool_call_id: toolCallId,
  invocation_action_instance_id: port.invocation_action_instance_id,
  participant_address: port.participant_address,
  episode_id: port.episode_id,
  participant_implementation_ref: port.participant_implementation_ref,
  tool_affordance_address: relation.tool_affordance_address,
  action_contract_address: relation.action_contract_address,
  observation_boundary_address: relation.observation_boundary_address,
  target_addresses: relation.target_addresses,
  execution_scope_ref: port.execution_scope_ref,
  execution_generation: port.execution_generation,
});
