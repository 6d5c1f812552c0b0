// An upstream MCP server on stdio for the gateway specs (plain JavaScript: the gateway starts it with
// node, as a user's server would be started). `lookup` answers with RESULT_MARKER and the query,
// `slow` outlives any short timeout, `hidden` is never mapped. tools/list pages two tools at a time.
// The name of every tool called is appended to UPSTREAM_CALLS_FILE (names only).
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const input = { type: 'object', properties: { query: { type: 'string' } } };
const TOOLS = [
  { name: 'lookup', description: 'Looks a query up.', inputSchema: input },
  { name: 'hidden', description: 'Not mapped for the engine.', inputSchema: input },
  { name: 'slow', description: 'Takes its time.', inputSchema: input },
  { name: 'unafforded', description: 'Mapped to a relation the scenario does not afford.', inputSchema: input },
];
const PAGE = 2;

const server = new Server({ name: 'gateway-spec-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request) => {
  const start = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
  const next = start + PAGE;
  return next < TOOLS.length ? { tools: TOOLS.slice(start, next), nextCursor: String(next) } : { tools: TOOLS.slice(start, next) };
});
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const name = request.params.name;
  if (process.env.UPSTREAM_CALLS_FILE) appendFileSync(process.env.UPSTREAM_CALLS_FILE, `${name}\n`);
  if (name === 'slow') await new Promise((resolve) => setTimeout(resolve, 3000));
  const query = String(request.params.arguments?.query ?? '');
  return { content: [{ type: 'text', text: `${process.env.RESULT_MARKER ?? 'result'} for ${query}` }] };
});
await server.connect(new StdioServerTransport());
