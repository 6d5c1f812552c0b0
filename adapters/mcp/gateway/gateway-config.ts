import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { describeValidationErrors } from '../../../domain/invocation';
import { decodeToolMapping, type ToolMapping, type ToolRelation } from '../tool-mapping';

/**
 * The gateway's configuration file: the upstream MCP servers in the `mcpServers` shape MCP clients
 * use (stdio `command`/`args`/`env`, or Streamable HTTP `url`/`headers`), each with the relation of
 * its tools (`tools`: a tool mapping, inline or a file path relative to the configuration), and the
 * agent to start for each invocation.
 *
 *   { "mcpServers": { "portal": { "command": "node", "args": ["server.js"], "tools": "portal.mapping.json" } },
 *     "agent": { "command": "python3", "args": ["agent.py", "{mcp_config}"] } }
 */

const NonEmpty = t.refinement(t.string, (value) => value.length > 0, 'non-empty string');
const StringRecord = t.record(t.string, t.string);
const ToolsField = t.union([NonEmpty, t.UnknownRecord]);

const StdioServerCodec = t.exact(
  t.intersection([
    t.type({ command: NonEmpty, tools: ToolsField }),
    t.partial({ args: t.array(t.string), env: StringRecord, cwd: t.string }),
  ]),
);
const HttpServerCodec = t.exact(
  t.intersection([t.type({ url: NonEmpty, tools: ToolsField }), t.partial({ headers: StringRecord, type: t.string })]),
);
const AgentCodec = t.exact(
  t.intersection([
    t.type({ command: NonEmpty }),
    t.partial({
      args: t.array(t.string),
      env: StringRecord,
      cwd: t.string,
      timeout_ms: t.number,
      mcp_transport: t.keyof({ http: null, stdio: null }),
    }),
  ]),
);
const GatewayFileCodec = t.type({
  mcpServers: t.record(t.string, t.union([StdioServerCodec, HttpServerCodec])),
  agent: AgentCodec,
});

export type UpstreamServer =
  | {
      readonly name: string;
      readonly transport: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string;
      readonly tools: ToolMapping;
    }
  | {
      readonly name: string;
      readonly transport: 'http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly tools: ToolMapping;
    };

export interface AgentCommand {
  readonly command: string;
  /** `{mcp_config}` in an argument is replaced by the path of the invocation's MCP configuration. */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** How long one invocation's agent may run before it is killed (its invocation then fails). */
  readonly timeoutMs: number;
  /** `http` (default): the gateway's URL and bearer header; `stdio`: a command that relays to it. */
  readonly mcpTransport?: 'http' | 'stdio';
}

export interface GatewayConfig {
  readonly servers: readonly UpstreamServer[];
  readonly agent: AgentCommand;
  /** Every gateway tool name -> its relation (names are unique across servers). */
  readonly mapping: ToolMapping;
}

export type GatewayConfigLoaded = { readonly ok: true; readonly config: GatewayConfig } | { readonly ok: false; readonly message: string };

export const DEFAULT_AGENT_TIMEOUT_MS = 10 * 60_000;

const fail = (path: string, message: string): GatewayConfigLoaded => ({ ok: false, message: `${path}: ${message}` });

const toolsOf = (base: string, server: string, field: string | Record<string, unknown>): { ok: true; tools: ToolMapping } | { ok: false; message: string } => {
  let raw: unknown = field;
  if (typeof field === 'string') {
    const file = isAbsolute(field) ? field : resolve(base, field);
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      return { ok: false, message: `mcpServers.${server}.tools: cannot read the tool mapping ${file}: ${(error as Error).message}` };
    }
  }
  const decoded = decodeToolMapping(raw);
  return isLeft(decoded) ? { ok: false, message: `mcpServers.${server}.tools: ${decoded.left}` } : { ok: true, tools: decoded.right };
};

/** Decodes a configuration; relative paths (tool mappings, cwd) are taken from `base`. */
export const decodeGatewayConfig = (input: unknown, base: string, path = 'the gateway configuration'): GatewayConfigLoaded => {
  const decoded = GatewayFileCodec.decode(input);
  if (isLeft(decoded)) return fail(path, describeValidationErrors(decoded.left));
  const file = decoded.right;
  const servers: UpstreamServer[] = [];
  const mapping: Record<string, ToolRelation> = {};
  const owner = new Map<string, string>();
  for (const [name, server] of Object.entries(file.mcpServers)) {
    const tools = toolsOf(base, name, server.tools as string | Record<string, unknown>);
    if (!tools.ok) return fail(path, tools.message);
    for (const [tool, relation] of Object.entries(tools.tools)) {
      const other = owner.get(tool);
      if (other !== undefined) return fail(path, `tool ${tool} is mapped by both mcpServers.${other} and mcpServers.${name}; a tool name must be unique`);
      owner.set(tool, name);
      mapping[tool] = relation;
    }
    if ('command' in server) {
      servers.push({
        name,
        transport: 'stdio',
        command: server.command,
        args: server.args ?? [],
        env: server.env ?? {},
        cwd: server.cwd === undefined ? base : resolve(base, server.cwd),
        tools: tools.tools,
      });
    } else {
      try {
        new URL(server.url);
      } catch {
        return fail(path, `mcpServers.${name}.url: expected an http(s) URL, got ${JSON.stringify(server.url)}`);
      }
      servers.push({ name, transport: 'http', url: server.url, headers: server.headers ?? {}, tools: tools.tools });
    }
  }
  if (servers.length === 0) return fail(path, 'mcpServers: declare at least one upstream MCP server');
  const agent = file.agent;
  return {
    ok: true,
    config: {
      servers,
      mapping,
      agent: {
        command: agent.command,
        args: agent.args ?? [],
        env: agent.env ?? {},
        cwd: agent.cwd === undefined ? base : resolve(base, agent.cwd),
        timeoutMs: agent.timeout_ms ?? DEFAULT_AGENT_TIMEOUT_MS,
        ...(agent.mcp_transport === undefined ? {} : { mcpTransport: agent.mcp_transport }),
      },
    },
  };
};

/** Reads and decodes the configuration file at `path`. */
export const loadGatewayConfig = (path: string): GatewayConfigLoaded => {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return fail(path, `cannot read the gateway configuration (JSON expected): ${(error as Error).message}`);
  }
  return decodeGatewayConfig(raw, dirname(resolve(path)), path);
};
