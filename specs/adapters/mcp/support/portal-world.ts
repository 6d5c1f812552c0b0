import { MemoryEventStore, type EventStore } from '../../../../adapters/event-store';
import { AdmittedToolClient, type AdmittedToolCall, type ToolMapping } from '../../../../adapters/mcp';
import {
  HarnessRuntime,
  invocationAggregate,
  RuntimeManager,
  type InvocationToolActionPort,
  type RuntimeProgress,
} from '../../../../domain/application';
import type { ToolActionRecord } from '../../../../domain/invocation';
import { outerProbeResult } from '../../../../examples/mcp/agent-harness';
import type { PortalMcpConnection, PortalMcpConnectionOptions } from '../../../../examples/mcp/connect';
import { loadPortalProbeExample } from '../../../../examples/mcp/demo';
import type { SlowCall } from '../../../../examples/mcp/portal-mcp-server';
import { DEMO_ACCOUNT, startPortalService, type PortalService, type PortalServiceOptions } from '../../../../examples/mcp/portal-service';

/**
 * The example world for MCP specs: the portal-probe scenario and manifest, the real runtime manager on
 * a real store, the customer portal on 127.0.0.1 and the project's MCP server reached by `connect`.
 */

export const POLICY = 'participant.autonomous-execution.participant-behavior';
export const PARTICIPANT = 'participant.behavior.participant-agent';
export const FIRST_INVOCATION = `${POLICY}:${PARTICIPANT}:1`;
export const PORTAL_MAPPING: ToolMapping = loadPortalProbeExample().mapping;
export const GOOD_LOGIN = { username: DEMO_ACCOUNT.username, password: DEMO_ACCOUNT.password };

/** One scripted call of a test's agent. */
export interface TestCall {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
  readonly tool_call_id?: string;
  readonly timeout?: number;
  /** Aborts the call this many milliseconds after it starts. */
  readonly abortAfterMs?: number;
  /** Runs once the call is under way (the server can be killed then). */
  readonly whileRunning?: (connection: PortalMcpConnection) => void;
}

export interface PortalWorldOptions {
  readonly connect: (options: PortalMcpConnectionOptions) => Promise<PortalMcpConnection>;
  readonly store?: EventStore;
  readonly mapping?: ToolMapping;
  readonly slowCall?: SlowCall;
  readonly portal?: PortalServiceOptions;
  /** Runs in each invocation with its wrapped client, before the script. */
  readonly beforeScript?: (tools: AdmittedToolClient, port: InvocationToolActionPort) => Promise<void>;
  /** The calls of each invocation, by attempt number (1, 2, ...). */
  readonly script: (attempt: number) => readonly TestCall[];
}

export interface PortalWorld {
  readonly manager: RuntimeManager;
  readonly store: EventStore;
  readonly portal: PortalService;
  readonly connection: PortalMcpConnection;
  /** What the model received for each call, in order. */
  readonly calls: AdmittedToolCall[];
  readonly progress: RuntimeProgress[];
  /** The tool action records of an invocation, read back from the store. */
  toolActions(invocationId: string): Promise<readonly ToolActionRecord[]>;
  close(): Promise<void>;
}

const AT = new Date('2026-04-11T10:00:00Z');

export const openPortalWorld = async (options: PortalWorldOptions): Promise<PortalWorld> => {
  const store = options.store ?? new MemoryEventStore();
  const portal = await startPortalService(options.portal ?? {});
  const connection = await options.connect(
    options.slowCall === undefined ? { portalUrl: portal.url } : { portalUrl: portal.url, slowCall: options.slowCall },
  );
  const calls: AdmittedToolCall[] = [];
  const progress: RuntimeProgress[] = [];
  const example = loadPortalProbeExample();
  const runtime = new HarnessRuntime(async (request, snapshot, port) => {
    const made: AdmittedToolCall[] = [];
    if (port !== undefined) {
      const tools = new AdmittedToolClient(connection.client, port, options.mapping ?? example.mapping);
      await options.beforeScript?.(tools, port);
      for (const step of options.script(snapshot.attempt)) {
        const controller = new AbortController();
        const timer = step.abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), step.abortAfterMs);
        const running = tools.callTool(
          { name: step.name, arguments: step.arguments ?? {}, ...(step.tool_call_id === undefined ? {} : { tool_call_id: step.tool_call_id }) },
          { signal: controller.signal, ...(step.timeout === undefined ? {} : { timeout: step.timeout }) },
        );
        if (step.whileRunning !== undefined) setTimeout(() => step.whileRunning?.(connection), 50);
        const call = await running;
        if (timer !== undefined) clearTimeout(timer);
        made.push(call);
        calls.push(call);
      }
    }
    return outerProbeResult(request, made);
  });
  const manager = new RuntimeManager({
    compiled: example.compiled,
    manifest: example.manifest,
    runtime,
    store,
    episodeId: 'episode-mcp',
    clock: () => AT,
    onProgress: (event) => progress.push(event),
  });
  await manager.start();
  return {
    manager,
    store,
    portal,
    connection,
    calls,
    progress,
    toolActions: async (invocationId) => {
      const aggregate = invocationAggregate(store, 'episode-mcp', invocationId);
      const loaded = await aggregate.load();
      if (loaded.kind !== 'loaded') throw new Error(`reading ${invocationId}: ${loaded.reason}`);
      return aggregate.state.status === 'opened' ? aggregate.state.toolActions : [];
    },
    close: async () => {
      await manager.close();
      await connection.close();
      await portal.close();
    },
  };
};

/** The text of a tool result's first content item. */
export const textOf = (call: AdmittedToolCall): string => {
  const first = call.result.content[0];
  return first !== undefined && first.type === 'text' ? first.text : '';
};
