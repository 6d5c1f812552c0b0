import { toolActionRequestFor, type InvocationToolActionPort } from '../../domain/application';

/**
 * The seed's `call_tool`: admit the call and dispatch it (one port call, admitAndDispatch), run the tool
 * only after an accepted dispatch, then complete it, or report its effects unknown when it timed out.
 */

/** The tool did not answer in time: its effects are unknown. */
export class ToolTimeout extends Error {
  constructor(toolName: string) {
    super(`${toolName} timed out`);
    this.name = 'ToolTimeout';
  }
}

/** The compiled relation a tool call uses. */
export interface ToolBinding {
  readonly tool_affordance_address: string;
  readonly action_contract_address: string;
  readonly observation_boundary_address: string;
  readonly target_addresses: readonly string[];
  readonly evidence_refs?: readonly string[];
}

export type ToolCallOutcome =
  | { readonly kind: 'refused'; readonly refusal: string }
  | { readonly kind: 'not_dispatched'; readonly action_instance_id: string; readonly refusal: string }
  | { readonly kind: 'completed'; readonly action_instance_id: string; readonly succeeded: boolean }
  | { readonly kind: 'unknown'; readonly action_instance_id: string };

/**
 * Runs one tool call through the port. `runTool` resolves true on success, false on failure, and
 * rejects with ToolTimeout when its effects are unknown. Neither its arguments nor its result go
 * through the port.
 */
export const callTool = async (
  port: InvocationToolActionPort,
  toolCallId: string,
  binding: ToolBinding,
  runTool: () => Promise<boolean>,
): Promise<ToolCallOutcome> => {
  // Admission and dispatch in one durable append: the harness runs the tool right after both.
  const decision = await port.admitAndDispatch(toolActionRequestFor(port, toolCallId, binding));
  if (!decision.admitted) return { kind: 'refused', refusal: decision.refusal }; // do not run the tool
  const actionInstanceId = decision.action_instance_id;
  if (!decision.accepted) return { kind: 'not_dispatched', action_instance_id: actionInstanceId, refusal: decision.refusal };
  let succeeded: boolean;
  try {
    succeeded = await runTool();
  } catch (error) {
    if (!(error instanceof ToolTimeout)) throw error;
    await port.reportUnknown(actionInstanceId, 'timeout');
    return { kind: 'unknown', action_instance_id: actionInstanceId };
  }
  const completed = await port.complete(actionInstanceId, {
    status: succeeded ? 'succeeded' : 'failed',
    participant_address: port.participant_address,
    episode_id: port.episode_id,
    action_instance_id: actionInstanceId,
    action_contract_address: binding.action_contract_address,
    observation_point: port.observation_point,
    ...(binding.evidence_refs === undefined ? {} : { evidence_refs: binding.evidence_refs }),
    ...(succeeded ? {} : { failure_class: 'target_unavailable' as const }),
  });
  if (!completed.accepted) {
    // The outcome was refused (outcome_invalid): its effects happened but are not recorded as told.
    await port.reportUnknown(actionInstanceId, `outcome refused: ${completed.refusal}`);
    return { kind: 'unknown', action_instance_id: actionInstanceId };
  }
  return { kind: 'completed', action_instance_id: actionInstanceId, succeeded };
};
