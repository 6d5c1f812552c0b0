import { join } from 'node:path';
import type { GatewayConfig } from '../../adapters/mcp/gateway';
import type { ToolMapping } from '../../adapters/mcp';
import { loadPortalProbeExample } from '../mcp/demo';

/**
 * The gateway configuration `raes-tools demo` runs: the portal-probe MCP server with its portal
 * (portal-upstream, TypeScript through tsx in a checkout, JavaScript once built) and agent.mjs, the
 * plain MCP client agent. The fourth probe_login call (attempt 3's) outlives the 1 s timeout.
 */

export const DEMO_TIMEOUT_MS = 1_000;
const BUILT = __filename.endsWith('.js');

export const demoGatewayConfig = (): GatewayConfig => {
  const { mapping } = loadPortalProbeExample();
  const tools: Record<string, ToolMapping[string]> = {};
  for (const [name, relation] of Object.entries(mapping)) tools[name] = { ...relation, timeout_ms: DEMO_TIMEOUT_MS };
  const upstream = join(__dirname, BUILT ? 'portal-upstream.js' : 'portal-upstream.ts');
  return {
    servers: [
      {
        name: 'portal',
        transport: 'stdio',
        command: process.execPath,
        args: BUILT ? [upstream] : ['--import', 'tsx', upstream],
        env: { PORTAL_MCP_SLOW_CALL: '4' },
        cwd: join(__dirname, '..', '..'),
        tools,
      },
    ],
    mapping: tools,
    agent: { command: process.execPath, args: [join(__dirname, 'agent.mjs'), '{mcp_config}'], env: {}, cwd: __dirname, timeoutMs: 60_000 },
  };
};
