// An agent for the gateway example: any MCP client would do. It reads the MCP configuration the
// engine gives it (RAES_MCP_CONFIG, or its first argument), lists the tools it is offered, and probes
// the customer portal's login: with the demo account on attempt 1, then it asks for reset_portal,
// which nobody mapped (the gateway refuses it); with a wrong password then the demo account on
// attempt 2; and on attempt 3 once more (that call is the slow one). It prints only what the engine
// decided for each call, and exits 0 when a login was accepted.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const config = JSON.parse(readFileSync(process.argv[2] ?? process.env.RAES_MCP_CONFIG, 'utf8'));
const gateway = config.mcpServers['raes-tool-actions'];
const client = new Client({ name: 'portal-probe-agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers: gateway.headers } }));

const { tools } = await client.listTools();
const account = { username: 'portal-prober', password: 'correct horse battery staple' };
const attempt = Number(process.env.RAES_ATTEMPT ?? '1');
const probe = (args) => ({ name: 'probe_login', arguments: args });
const calls =
  attempt === 1 ? [probe(account), { name: 'reset_portal', arguments: {} }] : attempt === 2 ? [probe({ ...account, password: 'wrong' }), probe(account)] : [probe(account)];

let accepted = false;
for (const call of calls) {
  const result = await client.callTool(call);
  const admission = result._meta?.['raes-tool-actions/admission'];
  accepted ||= result.isError !== true;
  process.stdout.write(`offered ${tools.map((tool) => tool.name).join(', ')}; ${call.name}: ${admission?.outcome ?? 'no admission'}\n`);
}
await client.close();
process.exit(accepted ? 0 : 1);
