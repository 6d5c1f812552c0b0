import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeTemporaryFolder } from '../../files/temporary-folder';
import { atProcessEnd } from '../../processes/process-exit';
import { endProcessTree } from '../../processes/process-tree';
import type { AgentCommand } from './gateway-config';
import type { GatewayAccess } from './gateway-http-server';

/**
 * Starts the user's agent for one invocation with an MCP configuration that points it at the
 * invocation's gateway: a file in the `mcpServers` shape (Streamable HTTP url + bearer header, or with
 * `mcp_transport: "stdio"` a command that relays stdio to the gateway), its
 * path in RAES_MCP_CONFIG and in place of `{mcp_config}` in the agent's arguments. The file lives in a
 * private temporary folder removed when the agent ends. The agent's output is drained and dropped:
 * it may hold tool arguments or results, which the engine never keeps. An agent past its timeout is
 * ended with every process it started (a wrapper's child, the stdio bridge), and so is one still
 * running when the engine's process ends.
 */

export const MCP_CONFIG_ENV = 'RAES_MCP_CONFIG';
export const MCP_CONFIG_ARG = '{mcp_config}';
/** The name of the gateway's entry in the agent's MCP configuration. */
export const GATEWAY_ENTRY = 'raes-tool-actions';

export interface AgentInvocation {
  readonly invocationActionInstanceId: string;
  readonly participantAddress: string;
  readonly attempt: number;
  readonly tick: number;
}

export type AgentExit = { readonly kind: 'exited'; readonly code: number } | { readonly kind: 'killed'; readonly reason: string };

/** How the agent is pointed at the gateway: Streamable HTTP itself, or a stdio command relaying to it. */
export type AgentMcpTransport = 'http' | 'stdio';

const BUILT = __filename.endsWith('.js');
const BRIDGE_SCRIPT = join(__dirname, BUILT ? 'stdio-bridge.js' : 'stdio-bridge.ts');

/** The bridge's command; from the sources it runs through tsx, found by absolute path so any cwd works. */
const bridgeCommand = (): { command: string; args: string[] } => ({
  command: process.execPath,
  args: BUILT ? [BRIDGE_SCRIPT] : ['--import', pathToFileURL(require.resolve('tsx')).href, BRIDGE_SCRIPT],
});

export const mcpConfigurationFor = (access: GatewayAccess, transport: AgentMcpTransport = 'http'): unknown => {
  if (transport === 'http') {
    return { mcpServers: { [GATEWAY_ENTRY]: { type: 'http', url: access.url, headers: { Authorization: `Bearer ${access.secret}` } } } };
  }
  const bridge = bridgeCommand();
  return {
    mcpServers: {
      [GATEWAY_ENTRY]: { type: 'stdio', command: bridge.command, args: bridge.args, env: { RAES_GATEWAY_URL: access.url, RAES_GATEWAY_SECRET: access.secret } },
    },
  };
};

export const runAgent = async (agent: AgentCommand, access: GatewayAccess, invocation: AgentInvocation): Promise<AgentExit> => {
  const folder = makeTemporaryFolder('raes-agent-');
  const configPath = join(folder.path, 'mcp.json');
  try {
    writeFileSync(configPath, `${JSON.stringify(mcpConfigurationFor(access, agent.mcpTransport), null, 2)}\n`, { mode: 0o600 });
    const child = spawn(agent.command, agent.args.map((arg) => arg.split(MCP_CONFIG_ARG).join(configPath)), {
      cwd: agent.cwd,
      env: {
        ...process.env,
        ...agent.env,
        [MCP_CONFIG_ENV]: configPath,
        RAES_INVOCATION_ID: invocation.invocationActionInstanceId,
        RAES_PARTICIPANT: invocation.participantAddress,
        RAES_ATTEMPT: String(invocation.attempt),
        RAES_TICK: String(invocation.tick),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.resume();
    child.stderr.resume();
    const pid = child.pid;
    const forget = pid === undefined ? () => undefined : atProcessEnd(() => endProcessTree(pid));
    return await new Promise<AgentExit>((resolve) => {
      const timer = setTimeout(() => {
        if (pid !== undefined) endProcessTree(pid);
        resolve({ kind: 'killed', reason: `ran past ${agent.timeoutMs} ms` });
      }, agent.timeoutMs);
      child.once('error', (error) => {
        clearTimeout(timer);
        forget();
        resolve({ kind: 'killed', reason: `could not start ${agent.command}: ${error.message}` });
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        forget();
        resolve(code === null ? { kind: 'killed', reason: `ended by ${signal ?? 'a signal'}` } : { kind: 'exited', code });
      });
    });
  } finally {
    folder.remove();
  }
};
