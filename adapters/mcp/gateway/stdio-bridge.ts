import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * For an agent that speaks MCP only over stdio: the engine's MCP configuration names this script as
 * the gateway's command. It relays each JSON-RPC message between its stdin/stdout and the
 * invocation's gateway over Streamable HTTP (RAES_GATEWAY_URL, with RAES_GATEWAY_SECRET as bearer
 * token). A message the gateway does not take (too large, say, or refused after the invocation closed)
 * fails alone: a request is answered with a JSON-RPC error, and the other calls go on. It ends when
 * stdin closes (exit 0) or the connection to the gateway closes (exit 1).
 */

export const GATEWAY_URL_ENV = 'RAES_GATEWAY_URL';
export const GATEWAY_SECRET_ENV = 'RAES_GATEWAY_SECRET';

/** JSON-RPC's code for an error of the server's own (here: the relay could not deliver the request). */
const INTERNAL_ERROR = -32603;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const main = async (): Promise<void> => {
  const url = process.env[GATEWAY_URL_ENV];
  const secret = process.env[GATEWAY_SECRET_ENV];
  if (url === undefined || secret === undefined) throw new Error(`set ${GATEWAY_URL_ENV} and ${GATEWAY_SECRET_ENV} (the engine's MCP configuration does)`);
  const gateway = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } });
  const local = new StdioServerTransport();
  let stopped = false;
  // Each side's close calls the other's: the first one ends the relay, the second finds it ended.
  const stop = (exitCode: number): void => {
    if (stopped) return;
    stopped = true;
    process.exitCode = exitCode;
    void gateway.close().catch(() => undefined);
    void local.close().catch(() => undefined);
  };
  const relay = async (message: JSONRPCMessage): Promise<void> => {
    try {
      await gateway.send(message);
    } catch (error) {
      process.stderr.write(`gateway bridge: ${messageOf(error)}\n`);
      if (stopped || !isJSONRPCRequest(message)) return;
      const failed: JSONRPCMessage = {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: INTERNAL_ERROR, message: `the engine's gateway did not take the request: ${messageOf(error)}` },
      };
      await local.send(failed).catch(() => undefined);
    }
  };
  local.onmessage = (message) => void relay(message);
  local.onerror = (error) => process.stderr.write(`gateway bridge: unreadable message on stdin: ${messageOf(error)}\n`);
  gateway.onmessage = (message) => {
    if (!stopped) void local.send(message).catch(() => undefined);
  };
  local.onclose = () => stop(0);
  gateway.onclose = () => stop(1);
  process.stdin.once('end', () => stop(0));
  await gateway.start();
  await local.start();
};

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`gateway bridge: ${messageOf(error)}\n`);
    process.exit(1);
  });
}
