import { HarnessRuntime } from '../../domain/application';
import type { HarnessSpec } from './harness-spec';
import type { HarnessOptions, StartedHarness } from './harness-types';
import { startPluginHarness } from './plugin-harnesses';
import type { ToolCallOutcome } from '../../examples/harness/call-tool';
import { scriptedHarness } from '../../examples/harness/scripted-harness';
import { scriptedMcpAgent, type ToolCallSummary } from '../../examples/mcp/agent-harness';
import { connectStdio, type StdioConnection } from '../../examples/mcp/connect';
import { DEMO_SCRIPT, loadPortalProbeExample } from '../../examples/mcp/demo';
import { startPortalService, type PortalService } from '../../examples/mcp/portal-service';
import { toolTail } from './format';

/**
 * The bundled harnesses `run` can drive: `scripted` (examples/harness: three portal-client calls per
 * invocation, the second one times out) and `mcp` (examples/mcp: a customer portal on 127.0.0.1, the
 * project's MCP server as a child process on stdio, and a scripted agent; attempt 3's probe times out).
 */

export type HarnessKind = 'scripted' | 'mcp';
export const HARNESS_KINDS: readonly HarnessKind[] = ['scripted', 'mcp'];

/** DEMO_SCRIPT's attempt 3 probe is the server's fourth probe_login call; it outlives the 500 ms timeout. */
const SLOW_PROBE = { call: 4, delayMs: 3_000 } as const;

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

const describeMcp = (call: ToolCallSummary): string => {
  const id = call.action_instance_id === undefined ? 'no action' : toolTail(call.action_instance_id);
  const outcome =
    call.outcome === 'refused'
      ? `refused (${call.code ?? 'refused'}), the tool never ran`
      : call.outcome === 'unknown'
        ? `effects unknown (${call.code ?? 'unknown'})`
        : call.outcome;
  return `      harness: ${id} MCP tool ${call.tool}: ${outcome}`;
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
  const { mapping } = loadPortalProbeExample();
  const portal: PortalService = await startPortalService();
  let connection: StdioConnection;
  try {
    connection = await connectStdio({ portalUrl: portal.url, slowCall: SLOW_PROBE });
  } catch (error) {
    await portal.close();
    throw error;
  }
  const runtime = new HarnessRuntime(
    scriptedMcpAgent({
      client: connection.client,
      mapping,
      script: DEMO_SCRIPT,
      onToolCall: (call) => options.onCall(describeMcp(call)),
    }),
  );
  return {
    runtime,
    close: async () => {
      try {
        await connection.close();
      } finally {
        await portal.close();
      }
    },
  };
};

export type { HarnessOptions, StartedHarness };
