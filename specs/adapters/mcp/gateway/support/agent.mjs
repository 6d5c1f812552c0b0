// An unmodified MCP client standing in for an agent: it reads the MCP configuration the engine gives
// it (the path in RAES_MCP_CONFIG, or its first argument), connects to every server there with the
// SDK's Client, lists all tools page by page, and calls tools by attempt (RAES_ATTEMPT). What it saw
// goes to AGENT_REPORT_DIR/attempt-<n>.json, outside the engine's data directory.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const configPath = process.argv[2] ?? process.env.RAES_MCP_CONFIG;
const config = JSON.parse(readFileSync(configPath, 'utf8'));
const [name, entry] = Object.entries(config.mcpServers)[0];
const client = new Client({ name: 'spec-agent', version: '1.0.0' });
await client.connect(
  entry.command !== undefined
    ? new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...getDefaultEnvironment(), ...entry.env } })
    : new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }),
);

const listed = [];
let cursor;
let pages = 0;
do {
  const page = await client.listTools(cursor === undefined ? undefined : { cursor });
  pages += 1;
  listed.push(...page.tools.map((tool) => tool.name));
  cursor = page.nextCursor;
} while (cursor !== undefined);

// A cursor the gateway never gave out: MCP wants -32602 (invalid params) for it.
let invalidCursorCode = null;
try {
  await client.listTools({ cursor: 'not-a-cursor-the-gateway-gave' });
} catch (error) {
  invalidCursorCode = error.code ?? null;
}

const attempt = Number(process.env.RAES_ATTEMPT);
const script =
  attempt === 1
    ? [['lookup', { query: process.env.ARGUMENT_MARKER }], ['hidden', { query: process.env.ARGUMENT_MARKER }], ['unafforded', { query: 'x' }]]
    : [['slow', { query: process.env.ARGUMENT_MARKER }]];
const calls = [];
for (const [tool, args] of script) {
  const result = await client.callTool({ name: tool, arguments: args });
  calls.push({ tool, isError: result.isError === true, text: result.content[0]?.text ?? '', admission: result._meta?.['raes-tool-actions/admission'] ?? null });
}
writeFileSync(join(process.env.AGENT_REPORT_DIR, `attempt-${attempt}.json`), JSON.stringify({ server: name, transport: entry.command !== undefined ? 'stdio' : 'http', pages, listed, invalidCursorCode, calls }, null, 2));
await client.close();
