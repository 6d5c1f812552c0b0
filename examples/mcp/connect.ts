import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createPortalMcpServer, probeCallsOf, type SlowCall } from './portal-mcp-server';

/** Ways to reach the portal-probe MCP server: in this process, or as a child process over stdio. */

export interface PortalMcpConnection {
  readonly client: Client;
  /** probe_login calls the server has received, asked of the server itself. */
  probeCalls(): Promise<number>;
  close(): Promise<void>;
}

export interface PortalMcpConnectionOptions {
  readonly portalUrl: string;
  readonly slowCall?: SlowCall;
}

const CLIENT_INFO = { name: 'portal-probe-harness', version: '1.0.0' };

const REPOSITORY_ROOT = join(__dirname, '..', '..');
/** The server script beside this module: TypeScript run through tsx in the repository, JavaScript once built. */
const BUILT = __filename.endsWith('.js');
export const STDIO_SERVER_SCRIPT = join(__dirname, BUILT ? 'serve-stdio.js' : 'serve-stdio.ts');

const probeCallsThrough = (client: Client) => async (): Promise<number> =>
  probeCallsOf(await client.callTool({ name: 'call_count' }));

export const connectInMemory = async (options: PortalMcpConnectionOptions): Promise<PortalMcpConnection> => {
  const { server } = createPortalMcpServer(
    options.slowCall === undefined ? { portalUrl: options.portalUrl } : { portalUrl: options.portalUrl, slowCall: options.slowCall },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(CLIENT_INFO);
  await client.connect(clientSide);
  return {
    client,
    probeCalls: probeCallsThrough(client),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
};

export interface StdioConnection extends PortalMcpConnection {
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** The server process id, while it runs. */
  serverPid(): number | null;
}

/** Spawns `serve-stdio.ts` with tsx and connects to it; the server's stderr is captured, not inherited. */
export const connectStdio = async (options: PortalMcpConnectionOptions): Promise<StdioConnection> => {
  const args = [...(BUILT ? [] : ['--import', 'tsx']), STDIO_SERVER_SCRIPT, '--portal-url', options.portalUrl];
  if (options.slowCall !== undefined) args.push('--slow-call', String(options.slowCall.call), '--slow-ms', String(options.slowCall.delayMs));
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: REPOSITORY_ROOT, stderr: 'pipe' });
  let stderr = '';
  (transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return {
    client,
    probeCalls: probeCallsThrough(client),
    stderr: () => stderr,
    serverPid: () => transport.pid,
    close: () => client.close(),
  };
};
