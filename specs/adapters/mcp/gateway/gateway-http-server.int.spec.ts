import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { GatewayHttpServer, type GatewayAccess } from '../../../../adapters/mcp/gateway';

/** The gateway's HTTP side: one bearer secret per invocation selects its MCP server; nobody else gets in. */

const serverListing = (tool: string) => () => {
  const server = new Server({ name: 'test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: tool, inputSchema: { type: 'object' } }] }));
  return server;
};

const connect = async (url: string, authorization: string | undefined): Promise<Client> => {
  const client = new Client({ name: 'spec', version: '1.0.0' });
  const headers: Record<string, string> = authorization === undefined ? {} : { Authorization: authorization };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
};

const status = async (url: string, authorization: string | undefined): Promise<number> => {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
  await response.text();
  return response.status;
};

describe('GatewayHttpServer', () => {
  const gateway = new GatewayHttpServer();
  let first: GatewayAccess;
  let second: GatewayAccess;

  beforeAll(async () => {
    await gateway.start();
    first = gateway.grant('invocation-1', serverListing('first_tool'));
    second = gateway.grant('invocation-2', serverListing('second_tool'));
  });
  afterAll(() => gateway.close());

  it('listens on 127.0.0.1 and serves each secret its own invocation', async () => {
    expect(new URL(first.url).hostname).toBe('127.0.0.1');
    expect(first.secret).not.toBe(second.secret);
    const a = await connect(first.url, `Bearer ${first.secret}`);
    const b = await connect(second.url, `Bearer ${second.secret}`);
    expect((await a.listTools()).tools.map((tool) => tool.name)).toEqual(['first_tool']);
    expect((await b.listTools()).tools.map((tool) => tool.name)).toEqual(['second_tool']);
    await a.close();
    await b.close();
  });

  it('refuses a missing or wrong secret with 401, and an MCP client cannot connect with either', async () => {
    expect(await status(first.url, undefined)).toBe(401);
    expect(await status(first.url, 'Bearer not-a-secret')).toBe(401);
    await expect(connect(first.url, 'Bearer not-a-secret')).rejects.toThrow();
  });

  it('answers a revoked secret 410 invocation_closed, and leaves the others open', async () => {
    gateway.revoke('invocation-1');
    expect(await status(first.url, `Bearer ${first.secret}`)).toBe(410);
    expect(await status(second.url, `Bearer ${second.secret}`)).toBe(200);
  });

  it('refuses a GET: the gateway is stateless', async () => {
    const response = await fetch(second.url, { headers: { authorization: `Bearer ${second.secret}`, accept: 'text/event-stream' } });
    await response.text();
    expect(response.status).toBe(405);
  });
});
