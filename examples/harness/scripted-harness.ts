import type { Harness, InvocationToolActionPort, OuterActionRequest } from '../../domain/application';
import { callTool, ToolTimeout, type ToolBinding, type ToolCallOutcome } from './call-tool';

/**
 * A scripted harness (no model behind it) for the portal-probe example: each invocation probes the
 * portal through the portal-client tool three times; the second probe times out. It stands in for an
 * agent loop and shows the port's use; the demo reuses it.
 */

export const PORTAL_CLIENT: ToolBinding = {
  tool_affordance_address: 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client',
  action_contract_address: 'participant.action-contract.probe-customer-portal-login',
  observation_boundary_address: 'participant.observation-boundary.participant-view',
  target_addresses: ['provision.node.customer-portal.service.http'],
  evidence_refs: ['content.participant-observation'],
};

/** One scripted step: what the tool does when it runs. */
export type ScriptedTool = 'succeeds' | 'fails' | 'times_out';

export const DEFAULT_SCRIPT: readonly ScriptedTool[] = ['succeeds', 'times_out', 'fails'];

const runScripted = (step: ScriptedTool, delayMs: number): (() => Promise<boolean>) => async () => {
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  if (step === 'times_out') throw new ToolTimeout('portal-client');
  return step === 'succeeds';
};

export interface ScriptedHarnessOptions {
  readonly script?: readonly ScriptedTool[];
  readonly binding?: ToolBinding;
  /** How long each scripted tool "runs". */
  readonly toolDelayMs?: number;
  /** Sees each call's outcome (a demo prints them). */
  readonly onToolCall?: (outcome: ToolCallOutcome) => void;
}

/** The tool calls of one invocation, in order; resolves with their outcomes. */
export const runScript = async (
  port: InvocationToolActionPort,
  options: ScriptedHarnessOptions = {},
): Promise<ToolCallOutcome[]> => {
  const outcomes: ToolCallOutcome[] = [];
  const script = options.script ?? DEFAULT_SCRIPT;
  for (let i = 0; i < script.length; i++) {
    const step = script[i] as ScriptedTool;
    const toolCallId = `${port.invocation_action_instance_id}#call-${i + 1}`;
    const outcome = await callTool(port, toolCallId, options.binding ?? PORTAL_CLIENT, runScripted(step, options.toolDelayMs ?? 0));
    options.onToolCall?.(outcome);
    outcomes.push(outcome);
  }
  return outcomes;
};

/** The outer result of a probe: succeeded when any tool call completed successfully. */
export const probeResult = (request: OuterActionRequest, outcomes: readonly ToolCallOutcome[]) => ({
  status: outcomes.some((outcome) => outcome.kind === 'completed' && outcome.succeeded) ? 'succeeded' : 'failed',
  participant_address: request.participant_address,
  episode_id: request.episode_id,
  action_instance_id: request.action_instance_id,
  action_contract_address: request.action_contract_address,
  observation_point: request.observation_point,
  evidence_refs: ['content.participant-observation'],
});

/** A Harness for HarnessRuntime: runs the script when a port is attached, and reports the probe. */
export const scriptedHarness =
  (options: ScriptedHarnessOptions = {}): Harness =>
  async (request, _snapshot, port) => {
    const outcomes = port === undefined ? [] : await runScript(port, options);
    return probeResult(request, outcomes);
  };
