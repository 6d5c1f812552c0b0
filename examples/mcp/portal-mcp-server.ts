import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod/v4';

/**
 * The project's MCP server for the portal-probe example. `probe_login` posts the given credentials to
 * the customer portal and answers with its verdict; `call_count` says how many `probe_login` calls
 * reached this server (how a test shows that a refused call never arrived).
 */

export interface SlowCall {
  /** Which probe_login call (from 1) is slow. */
  readonly call: number;
  readonly delayMs: number;
}

export interface PortalMcpServerOptions {
  /** Base URL of the customer portal, e.g. http://127.0.0.1:40123 */
  readonly portalUrl: string;
  readonly slowCall?: SlowCall;
  /** One line per call, counts only (never arguments or results); stderr for the stdio server. */
  readonly log?: (line: string) => void;
}

export const PORTAL_MCP_SERVER_NAME = 'portal-probe-tools';

const text = (value: string, isError = false): CallToolResult =>
  isError ? { isError: true, content: [{ type: 'text', text: value }] } : { content: [{ type: 'text', text: value }] };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const probe = async (portalUrl: string, username: string, password: string): Promise<CallToolResult> => {
  let response: Response;
  try {
    response = await fetch(new URL('/login', portalUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    return text('the customer portal did not answer', true);
  }
  const body = await response.text();
  if (response.status === 200) return text(`login accepted (HTTP 200): ${body}`);
  return text(`login rejected (HTTP ${response.status}): ${body}`, true);
};

const probeLoginInput = { username: z.string().min(1), password: z.string() };
type ProbeLoginArgs = { username: string; password: string };

export interface PortalMcpServer {
  readonly server: McpServer;
  /** probe_login calls received so far. */
  probeCalls(): number;
}

export const createPortalMcpServer = (options: PortalMcpServerOptions): PortalMcpServer => {
  const server = new McpServer({ name: PORTAL_MCP_SERVER_NAME, version: '1.0.0' });
  let calls = 0;

  server.registerTool(
    'probe_login',
    {
      description: 'Try to log in to the customer portal; answers whether the login was accepted.',
      inputSchema: probeLoginInput,
    },
    async (args: ProbeLoginArgs) => {
      const { username, password } = args;
      calls += 1;
      const call = calls;
      options.log?.(`probe_login call ${call}`);
      if (options.slowCall !== undefined && options.slowCall.call === call) await sleep(options.slowCall.delayMs);
      return probe(options.portalUrl, username, password);
    },
  );

  server.registerTool(
    'call_count',
    { description: 'How many probe_login calls this server has received.' },
    async () => text(JSON.stringify({ probe_login_calls: calls })),
  );

  return { server, probeCalls: () => calls };
};

/** Reads `call_count`'s answer. */
export const probeCallsOf = (answer: object): number => {
  const result = answer as { readonly content?: unknown };
  const content = Array.isArray(result.content) ? (result.content[0] as { text?: unknown } | undefined) : undefined;
  if (content === undefined || typeof content.text !== 'string') throw new Error('call_count answered without text');
  const parsed = JSON.parse(content.text) as { probe_login_calls?: unknown };
  if (typeof parsed.probe_login_calls !== 'number') throw new Error(`call_count answered ${content.text}`);
  return parsed.probe_login_calls;
};
