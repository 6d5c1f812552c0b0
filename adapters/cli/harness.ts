import { HarnessRuntime } from '../../domain/application';
import type { HarnessSpec } from './harness-spec';
import type { HarnessOptions, StartedHarness } from './harness-types';
import { startPluginHarness } from './plugin-harnesses';
import type { ToolCallOutcome } from '../../examples/harness/call-tool';
import { scriptedHarness } from '../../examples/harness/scripted-harness';
import { toolTail } from './format';

/**
 * The bundled harnesses `run` can drive: `scripted` (examples/harness: three portal-client calls per
 * invocation, the second one times out) and `mcp` (examples/mcp: a customer portal on 127.0.0.1, the
 * project's MCP server as a child process on stdio, and a scripted agent; attempt 3's probe times out).
 */

export type HarnessKind = 'scripted' | 'mcp';
export const HARNESS_KINDS: readonly HarnessKind[] = ['scripted', 'mcp'];

const describeScripted = (outcome: ToolCallOutcome): string => {
  switch (outcome.kind) {
    case 'refused':
      return `      harness: a portal-client call was refused at admission (${outcome.refusal}); the tool never ran`;
    case 'not_dispatched':
      return `      harness: ${toolTail(outcome.action_instance_id)} portal-client dispatch refused (${outcome.refusal}); the tool never ran`;
    case 'completed':
      return `      harness: ${toolTail(outcome.action_instance_id)} portal-client ran and ${outcome.succeeded ? 'succeeded' : 'failed'}`;
    case 'unknown':
      return `      harness: ${toolTail(outcome.action_instance_id)} portal-client timed out; its effects are unknown`;
  }
};

export const startHarness = async (spec: HarnessKind | HarnessSpec, options: HarnessOptions): Promise<StartedHarness> => {
  const kind = typeof spec === 'string' ? spec : spec.kind;
  if (typeof spec !== 'string' && spec.kind !== 'scripted' && spec.kind !== 'mcp') return startPluginHarness(spec, options);
  if (kind === 'scripted') {
    const harness = scriptedHarness({
      onToolCall: (outcome) => options.onCall(describeScripted(outcome)),
      ...(options.toolDelayMs === undefined ? {} : { toolDelayMs: options.toolDelayMs }),
    });
    return { runtime: new HarnessRuntime(harness), close: async () => undefined };
  }
  // The MCP SDK and the example's portal load only for the MCP harness, not at every command's start.
  return (require('./mcp-example-harness') as typeof import('./mcp-example-harness')).startMcpExampleHarness(options);
};

export type { HarnessOptions, StartedHarness };
