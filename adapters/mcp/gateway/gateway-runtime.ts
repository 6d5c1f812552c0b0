import type { AffordanceBinding } from '../../../domain/invocation/admission-context';
import { outerResultOf } from '../../harness/outer-result';
import { HarnessRuntime, type ParticipantRuntime } from '../../../domain/application/participant-runtime';
import type { AdmissionMeta } from '../admitted-client';
import { runAgent, type AgentExit } from './agent-process';
import type { GatewayConfig } from './gateway-config';
import { GatewayHttpServer } from './gateway-http-server';
import { createInvocationGateway } from './invocation-gateway';
import { connectUpstreams, type Upstreams } from './upstreams';

/**
 * A participant runtime whose invocations run the user's agent command against the engine's MCP
 * gateway: upstream servers connected once, a gateway secret per invocation (revoked when its agent
 * ends), and the invocation's outcome from the agent's exit (0: succeeded, anything else: failed).
 */

export interface GatewayRuntime {
  readonly runtime: ParticipantRuntime;
  readonly gatewayUrl: string;
  close(): Promise<void>;
}

export interface GatewayRuntimeOptions {
  readonly config: GatewayConfig;
  readonly bindings: readonly AffordanceBinding[];
  /** One line per agent run: identities and exit only. */
  readonly onAgentExit?: (invocationId: string, exit: AgentExit) => void;
  /** One line per tools/call: the tool's name and what the engine decided. */
  readonly onToolCall?: (invocationId: string, toolName: string, admission: AdmissionMeta) => void;
}

export const startGatewayRuntime = async (options: GatewayRuntimeOptions): Promise<GatewayRuntime> => {
  const upstreams: Upstreams = await connectUpstreams(options.config.servers);
  const http = new GatewayHttpServer();
  try {
    await http.start();
  } catch (error) {
    await upstreams.close();
    throw error;
  }
  const runtime = new HarnessRuntime(async (request, snapshot, port) => {
    if (port === undefined) {
      throw new Error(`${request.participant_address} has no tool-actions claim: the gateway harness needs the invocation's port`);
    }
    const invocationId = request.action_instance_id;
    const onToolCall = options.onToolCall;
    const access = http.grant(invocationId, () =>
      createInvocationGateway({
        port,
        upstreams,
        bindings: options.bindings,
        ...(onToolCall === undefined ? {} : { onToolCall: (tool: string, admission: AdmissionMeta) => onToolCall(invocationId, tool, admission) }),
      }),
    );
    try {
      const exit = await runAgent(options.config.agent, access, {
        invocationActionInstanceId: invocationId,
        participantAddress: request.participant_address,
        attempt: snapshot.attempt,
        tick: snapshot.tick,
      });
      options.onAgentExit?.(invocationId, exit);
      return outerResultOf(request, exit.kind === 'exited' && exit.code === 0);
    } finally {
      http.revoke(invocationId);
    }
  });
  return {
    runtime,
    gatewayUrl: http.url,
    close: async () => {
      try {
        await http.close();
      } finally {
        await upstreams.close();
      }
    },
  };
};
