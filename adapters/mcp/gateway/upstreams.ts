import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { atProcessEnd } from '../../processes/process-exit';
import { endProcessTree } from '../../processes/process-tree';
import type { UpstreamServer } from './gateway-config';

/**
 * The gateway's connections to the upstream MCP servers, opened once for a run and shared by every
 * invocation. An upstream's stderr is drained and dropped: it may hold tool content.
 */

export interface ConnectedUpstream {
  readonly server: UpstreamServer;
  readonly client: Client;
}

export interface Upstreams {
  readonly connected: readonly ConnectedUpstream[];
  /** The upstream that serves a tool, by the mapping. */
  serving(toolName: string): ConnectedUpstream | undefined;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'raes-tool-actions-gateway', version: '1.0.0' };

const transportOf = (server: UpstreamServer): StdioClientTransport | StreamableHTTPClientTransport => {
  if (server.transport === 'http') {
    return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { ...server.headers } } });
  }
  const transport = new StdioClientTransport({
    command: server.command,
    args: [...server.args],
    env: { ...getDefaultEnvironment(), ...server.env },
    cwd: server.cwd,
    stderr: 'pipe',
  });
  (transport.stderr as Readable | null)?.resume();
  return transport;
};

export const connectUpstreams = async (servers: readonly UpstreamServer[]): Promise<Upstreams> => {
  const connected: ConnectedUpstream[] = [];
  // A stdio server still running when the engine's process ends (a second Ctrl-C) is ended then.
  const endedAtExit: Array<() => void> = [];
  const close = async (): Promise<void> => {
    await Promise.allSettled(connected.map((upstream) => upstream.client.close()));
    for (const forget of endedAtExit) forget();
  };
  for (const server of servers) {
    const client = new Client(CLIENT_INFO);
    const transport = transportOf(server);
    try {
      await client.connect(transport);
      const pid = transport instanceof StdioClientTransport ? transport.pid : null;
      if (pid !== null) endedAtExit.push(atProcessEnd(() => endProcessTree(pid)));
    } catch (error) {
      await close();
      const where = server.transport === 'http' ? server.url : `${server.command} ${server.args.join(' ')}`;
      throw new Error(`cannot connect to the upstream MCP server ${server.name} (${where}): ${(error as Error).message}`);
    }
    connected.push({ server, client });
  }
  const byTool = new Map<string, ConnectedUpstream>();
  for (const upstream of connected) for (const tool of Object.keys(upstream.server.tools)) byTool.set(tool, upstream);
  return { connected, serving: (toolName) => byTool.get(toolName), close };
};
