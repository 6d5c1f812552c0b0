import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createPortalMcpServer } from '../mcp/portal-mcp-server';
import { startPortalService } from '../mcp/portal-service';

/**
 * The portal-probe MCP server with its customer portal in one process, as the gateway example's
 * upstream: the portal on 127.0.0.1, the MCP server on stdio. PORTAL_MCP_SLOW_CALL makes that
 * probe_login call (from 1) outlive any short timeout.
 */

const main = async (): Promise<void> => {
  const portal = await startPortalService();
  const slow = process.env.PORTAL_MCP_SLOW_CALL;
  const { server } = createPortalMcpServer({
    portalUrl: portal.url,
    ...(slow === undefined ? {} : { slowCall: { call: Number(slow), delayMs: 3_000 } }),
  });
  server.server.onclose = () => {
    void portal.close();
  };
  await server.connect(new StdioServerTransport());
  // The gateway gone (its process killed, say), standard input ends: so does this server, portal included.
  process.stdin.once('end', () => {
    void server.close();
  });
};

main().catch((error: unknown) => {
  process.stderr.write(`portal upstream: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
