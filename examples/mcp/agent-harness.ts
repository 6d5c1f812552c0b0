import type { Harness, OuterActionRequest, ParticipantSnapshot } from '../../domain/application';
import { AdmittedToolClient, type AdmittedToolCall, type McpToolCaller, type ToolMapping } from '../../adapters/mcp';

/**
 * A scripted agent harness (no model behind it): each invocation makes the scripted MCP tool calls
 * through an AdmittedToolClient bound to that invocation's port, feeds nothing back but the fact of
 * each answer, and reports the outer probe.
 */

export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
  /** Milliseconds before the call's effects are reported unknown. */
  readonly timeoutMs?: number;
}

/** The calls of one invocation; may differ per attempt. */
export type AgentScript = readonly ScriptedToolCall[] | ((snapshot: ParticipantSnapshot) => readonly ScriptedToolCall[]);

/** What a display may see of one call: its identities and outcome, never its arguments or result. */
export interface ToolCallSummary {
  readonly invocation_action_instance_id: string;
  readonly tool: string;
  readonly tool_call_id: string;
  readonly action_instance_id: string | undefined;
  readonly outcome: AdmittedToolCall['outcome'];
  readonly code: string | undefined;
}

export interface ScriptedAgentOptions {
  readonly client: McpToolCaller;
  readonly mapping: ToolMapping;
  readonly script: AgentScript;
  /** The model's view: each call's full answer (tool results go here and nowhere else). */
  readonly onToolResult?: (call: AdmittedToolCall) => void;
  readonly onToolCall?: (summary: ToolCallSummary) => void;
}

const summaryOf = (invocationId: string, tool: string, call: AdmittedToolCall): ToolCallSummary => ({
  invocation_action_instance_id: invocationId,
  tool,
  tool_call_id: call.tool_call_id,
  action_instance_id: call.action_instance_id,
  outcome: call.outcome,
  code: call.outcome === 'refused' ? call.refusal : call.outcome === 'unknown' ? call.reason : undefined,
});

/** The outer probe succeeded when one of its tool calls did. */
export const outerProbeResult = (request: OuterActionRequest, calls: readonly AdmittedToolCall[]) => ({
  status: calls.some((call) => call.outcome === 'succeeded') ? 'succeeded' : 'failed',
  participant_address: request.participant_address,
  episode_id: request.episode_id,
  action_instance_id: request.action_instance_id,
  action_contract_address: request.action_contract_address,
  observation_point: request.observation_point,
});

export const scriptedMcpAgent =
  (options: ScriptedAgentOptions): Harness =>
  async (request, snapshot, port) => {
    const calls: AdmittedToolCall[] = [];
    if (port !== undefined) {
      const tools = new AdmittedToolClient(options.client, port, options.mapping);
      const script = typeof options.script === 'function' ? options.script(snapshot) : options.script;
      for (const step of script) {
        const call = await tools.callTool(
          step.arguments === undefined ? { name: step.name } : { name: step.name, arguments: step.arguments },
          step.timeoutMs === undefined ? {} : { timeout: step.timeoutMs },
        );
        calls.push(call);
        options.onToolResult?.(call);
        options.onToolCall?.(summaryOf(request.action_instance_id, step.name, call));
      }
    }
    return outerProbeResult(request, calls);
  };
