import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createPortalMcpServer, type SlowCall } from './portal-mcp-server';

/**
 * Runs the portal-probe MCP server on stdio:
 *   node --import tsx examples/mcp/serve-stdio.ts --portal-url http://127.0.0.1:PORT [--slow-call N --slow-ms MS]
 * PORTAL_URL, PORTAL_MCP_SLOW_CALL and PORTAL_MCP_SLOW_MS are read when the flags are absent.
 * stdout carries the protocol; stderr gets one line per call, counts only.
 */

const positiveInteger = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new Error(`expected an integer >= 0 for ${name}, got ${JSON.stringify(value)}`);
  return number;
};

const main = async (): Promise<void> => {
  const { values } = parseArgs({
    options: {
      'portal-url': { type: 'string' },
      'slow-call': { type: 'string' },
      'slow-ms': { type: 'string' },
    },
  });
  const portalUrl = values['portal-url'] ?? process.env.PORTAL_URL;
  if (portalUrl === undefined) throw new Error('expected --portal-url (or PORTAL_URL): the customer portal base URL');
  const call = positiveInteger('--slow-call', values['slow-call'] ?? process.env.PORTAL_MCP_SLOW_CALL);
  const delayMs = positiveInteger('--slow-ms', values['slow-ms'] ?? process.env.PORTAL_MCP_SLOW_MS) ?? 5_000;
  const slowCall: SlowCall | undefined = call === undefined ? undefined : { call, delayMs };
  const { server } = createPortalMcpServer({
    portalUrl,
    ...(slowCall === undefined ? {} : { slowCall }),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  await server.connect(new StdioServerTransport());
};

main().catch((error: unknown) => {
  process.stderr.write(`portal MCP server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
