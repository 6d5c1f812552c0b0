import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InvocationSecrets, bearerSecret } from '../../http/invocation-secrets';
import { listenOnLoopback, stopServer } from '../../http/loopback-server';

/**
 * The gateway over Streamable HTTP on 127.0.0.1, at `/mcp`. Each invocation is granted its own random
 * secret, sent as `Authorization: Bearer <secret>`; the secret selects the invocation's MCP server.
 * Stateless: every POST gets a fresh server and transport for that invocation (progress and the
 * result stream back on the POST's response). A missing or unknown secret is refused 401, a revoked
 * one 410 `invocation_closed`. Nothing of a request body is logged.
 */

export const GATEWAY_PATH = '/mcp';

export interface GatewayAccess {
  readonly url: string;
  readonly secret: string;
}

/** Makes a fresh MCP server for one request of the invocation. */
type ServerFactory = () => Server;

const refuse = (response: ServerResponse, status: number, error: string, message: string): void => {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: `${error}: ${message}` }, id: null });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
};

export class GatewayHttpServer {
  private readonly secrets = new InvocationSecrets<ServerFactory>();
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
    const port = await listenOnLoopback(server);
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${port}${GATEWAY_PATH}`;
  }

  get url(): string {
    if (this.baseUrl === undefined) throw new Error('start() the gateway server first');
    return this.baseUrl;
  }

  /** Makes an invocation's gateway reachable with a fresh secret; hand it only to that invocation's agent. */
  grant(invocationId: string, serverFor: ServerFactory): GatewayAccess {
    return { url: this.url, secret: this.secrets.grant(invocationId, serverFor) };
  }

  revoke(invocationId: string): void {
    this.secrets.revoke(invocationId);
  }

  async close(): Promise<void> {
    this.secrets.clear();
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    await stopServer(server);
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if ((request.url ?? '').split('?')[0] !== GATEWAY_PATH) return refuse(response, 404, 'not_found', `the gateway is at ${GATEWAY_PATH}`);
    const secret = bearerSecret(request);
    if (secret === '') return refuse(response, 401, 'secret_missing', 'send the invocation secret as "Authorization: Bearer <secret>"');
    const grant = this.secrets.find(secret);
    if (grant.kind === 'closed') return refuse(response, 410, 'invocation_closed', 'the invocation has returned; its gateway is closed');
    if (grant.kind === 'unknown') return refuse(response, 401, 'secret_invalid', 'the secret is wrong, or the invocation has closed');
    if (request.method !== 'POST') return refuse(response, 405, 'method_not_allowed', 'this gateway is stateless: POST JSON-RPC messages');
    const server = grant.value();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  }
}
