import { HarnessRuntime } from '../../domain/application';
import type { HarnessOptions, StartedHarness } from './harness-types';
import { scriptedMcpAgent, type ToolCallSummary } from '../../examples/mcp/agent-harness';
import { connectStdio, type StdioConnection } from '../../examples/mcp/connect';
import { DEMO_SCRIPT, loadPortalProbeExample } from '../../examples/mcp/demo';
import { startPortalService, type PortalService } from '../../examples/mcp/portal-service';
import { toolTail } from './format';

/**
 * The bundled `mcp` harness: the example's customer portal on 127.0.0.1, the project's MCP server as a
 * child process on stdio, and a scripted agent calling it.
 */

/** DEMO_SCRIPT's attempt 3 probe is the server's fourth probe_login call; it outlives the 500 ms timeout. */
const SLOW_PROBE = { call: 4, delayMs: 3_000 } as const;

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

export const startMcpExampleHarness = async (options: HarnessOptions): Promise<StartedHarness> => {
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
