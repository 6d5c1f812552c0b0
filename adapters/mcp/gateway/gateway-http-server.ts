import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/**
 * The gateway over Streamable HTTP on 127.0.0.1, at `/mcp`. Each invocation is granted its own random
 * secret, sent as `Authorization: Bearer <secret>`; the secret selects the invocation's MCP server.
 * Stateless: every POST gets a fresh server and transport for that invocation (progress and the
 * result stream back on the POST's response). A missing or unknown secret is refused 401, a revoked
 * one 410 `invocation_closed`. Nothing of a request body is logged.
 */

export const GATEWAY_PATH = '/mcp';
const CLOSED_SECRETS_REMEMBERED = 10_000;

export interface GatewayAccess {
  readonly url: string;
  readonly secret: string;
}

interface Grant {
  readonly invocationId: string;
  readonly serverFor: () => Server;
}

const digestOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

const refuse = (response: ServerResponse, status: number, error: string, message: string): void => {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: `${error}: ${message}` }, id: null });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
};

export class GatewayHttpServer {
  private readonly grants = new Map<string, Grant>();
  private readonly byInvocation = new Map<string, string>();
  private readonly closed = new Set<string>();
  private server: HttpServer | undefined;
  private baseUrl: string | undefined;

  async start(): Promise<void> {
    if (this.server !== undefined) return;
    const server = createServer((request, response) => {
      this.serve(request, response).catch(() => {
        if (!response.headersSent) refuse(response, 500, 'internal', 'the gateway failed');
        else response.end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${GATEWAY_PATH}`;
  }

  get url(): string {
    if (this.baseUrl === undefined) throw new Error('start() the gateway server first');
    return this.baseUrl;
  }

  /** Makes an invocation's gateway reachable with a fresh secret; hand it only to that invocation's agent. */
  grant(invocationId: string, serverFor: () => Server): GatewayAccess {
    const secret = randomBytes(32).toString('base64url');
    const digest = digestOf(secret);
    this.grants.set(digest, { invocationId, serverFor });
    this.byInvocation.set(invocationId, digest);
    return { url: this.url, secret };
  }

  revoke(invocationId: string): void {
    const digest = this.byInvocation.get(invocationId);
    if (digest === undefined) return;
    this.byInvocation.delete(invocationId);
    this.grants.delete(digest);
    this.closed.add(digest);
    if (this.closed.size > CLOSED_SECRETS_REMEMBERED) {
      const oldest = this.closed.values().next();
      if (oldest.done !== true) this.closed.delete(oldest.value);
    }
  }

  async close(): Promise<void> {
    this.grants.clear();
    this.byInvocation.clear();
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if ((request.url ?? '').split('?')[0] !== GATEWAY_PATH) return refuse(response, 404, 'not_found', `the gateway is at ${GATEWAY_PATH}`);
    const header = request.headers.authorization;
    const secret = header !== undefined && header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    if (secret === '') return refuse(response, 401, 'secret_missing', 'send the invocation secret as "Authorization: Bearer <secret>"');
    const digest = digestOf(secret);
    const grant = this.grants.get(digest);
    if (grant === undefined) {
      if (this.closed.has(digest)) return refuse(response, 410, 'invocation_closed', 'the invocation has returned; its gateway is closed');
      return refuse(response, 401, 'secret_invalid', 'the secret is wrong, or the invocation has closed');
    }
    if (request.method !== 'POST') return refuse(response, 405, 'method_not_allowed', 'this gateway is stateless: POST JSON-RPC messages');
    const server = grant.serverFor();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  }
}
