import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/**
 * For an agent that speaks MCP only over stdio: the engine's MCP configuration names this script as
 * the gateway's command. It relays each JSON-RPC message between its stdin/stdout and the
 * invocation's gateway over Streamable HTTP (RAES_GATEWAY_URL, with RAES_GATEWAY_SECRET as bearer
 * token). It ends when stdin closes or the gateway refuses it.
 */

export const GATEWAY_URL_ENV = 'RAES_GATEWAY_URL';
export const GATEWAY_SECRET_ENV = 'RAES_GATEWAY_SECRET';

const main = async (): Promise<void> => {
  const url = process.env[GATEWAY_URL_ENV];
  const secret = process.env[GATEWAY_SECRET_ENV];
  if (url === undefined || secret === undefined) throw new Error(`set ${GATEWAY_URL_ENV} and ${GATEWAY_SECRET_ENV} (the engine's MCP configuration does)`);
  const gateway = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } });
  const local = new StdioServerTransport();
  const stop = (): void => {
    void gateway.close();
    void local.close();
  };
  local.onmessage = (message) => {
    gateway.send(message).catch((error: unknown) => {
      process.stderr.write(`gateway bridge: ${error instanceof Error ? error.message : String(error)}\n`);
      stop();
    });
  };
  gateway.onmessage = (message) => {
    void local.send(message);
  };
  local.onclose = stop;
  await gateway.start();
  await local.start();
};

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`gateway bridge: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
