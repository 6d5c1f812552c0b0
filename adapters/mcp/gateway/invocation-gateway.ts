import { nanoid } from 'nanoid';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { AffordanceBinding } from '../../../domain/invocation/admission-context';
import type { InvocationToolActionPort } from '../../../domain/ports/invocation-port';
import { admissionMetaOf, TOOL_CALL_ID_META_KEY, withAdmissionMeta, type AdmissionMeta } from '../admitted-client';
import { AdmittedToolClient } from '../admitted-tool-client';
import type { ToolMapping, ToolRelation } from '../tool-mapping';
import type { ConnectedUpstream, Upstreams } from './upstreams';

/**
 * The MCP server an agent sees for one invocation: tools/list answers the upstream servers' tools
 * that are afforded to the invocation's participant (paging through the upstreams in turn), and each
 * tools/call is admitted, dispatched, forwarded upstream and settled through the invocation's port.
 * A refused call is an isError result naming its code; the upstream never sees it.
 */

export const GATEWAY_SERVER_INFO = { name: 'raes-tool-actions-gateway', version: '1.0.0' };

export interface InvocationGatewayContext {
  readonly port: InvocationToolActionPort;
  readonly upstreams: Upstreams;
  /** The compiled affordance bindings of the scenario: a tool is listed only if bound for the participant. */
  readonly bindings: readonly AffordanceBinding[];
  readonly newToolCallId?: () => string;
  /** Called after each tools/call with the tool's name and what the engine decided (no content). */
  readonly onToolCall?: (toolName: string, admission: AdmissionMeta) => void;
}

/** The page a gateway cursor points at: which upstream, and that upstream's own cursor. */
interface GatewayCursor {
  readonly upstream: number;
  readonly cursor?: string;
}

const encodeCursor = (cursor: GatewayCursor): string => Buffer.from(JSON.stringify(cursor)).toString('base64url');

const decodeCursor = (text: string | undefined, upstreams: number): GatewayCursor | undefined => {
  if (text === undefined) return { upstream: 0 };
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { upstream?: unknown; cursor?: unknown };
    if (typeof value.upstream !== 'number' || !Number.isInteger(value.upstream) || value.upstream < 0 || value.upstream >= upstreams) return undefined;
    if (value.cursor !== undefined && typeof value.cursor !== 'string') return undefined;
    return value.cursor === undefined ? { upstream: value.upstream } : { upstream: value.upstream, cursor: value.cursor };
  } catch {
    return undefined;
  }
};

const isAfforded = (bindings: readonly AffordanceBinding[], participant: string, relation: ToolRelation): boolean =>
  bindings.some(
    (binding) =>
      binding.participant_address === participant &&
      binding.tool_affordance_address === relation.tool_affordance_address &&
      binding.action_contract_address === relation.action_contract_address,
  );

/** The upstream's tools that are afforded to this invocation's participant. */
const affordedMapping = (upstream: ConnectedUpstream, context: InvocationGatewayContext): ToolMapping => {
  const afforded: Record<string, ToolRelation> = {};
  for (const [tool, relation] of Object.entries(upstream.server.tools)) {
    if (isAfforded(context.bindings, context.port.participant_address, relation)) afforded[tool] = relation;
  }
  return afforded;
};

export const createInvocationGateway = (context: InvocationGatewayContext): Server => {
  const server = new Server(GATEWAY_SERVER_INFO, { capabilities: { tools: {} } });
  const options = context.newToolCallId === undefined ? {} : { newToolCallId: context.newToolCallId };
  const listing = context.upstreams.connected.map((upstream) => new AdmittedToolClient(upstream.client, context.port, affordedMapping(upstream, context), options));
  const calling = new Map<ConnectedUpstream, AdmittedToolClient>();
  context.upstreams.connected.forEach((upstream) => calling.set(upstream, new AdmittedToolClient(upstream.client, context.port, upstream.server.tools, options)));
  // A tool no upstream maps still goes through a wrapper, which refuses it `tool_unmapped`.
  const unmapped = context.upstreams.connected[0] === undefined ? undefined : new AdmittedToolClient(context.upstreams.connected[0].client, context.port, {}, options);

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra): Promise<ListToolsResult> => {
    const at = decodeCursor(request.params?.cursor, listing.length);
    // MCP: an invalid cursor is an invalid parameter (-32602), not an internal error.
    if (at === undefined) throw new McpError(ErrorCode.InvalidParams, 'the cursor is not one this gateway gave out; list again without a cursor');
    const page = await listing[at.upstream]!.listTools(at.cursor === undefined ? undefined : { cursor: at.cursor }, { signal: extra.signal });
    const next: GatewayCursor | undefined =
      page.nextCursor !== undefined ? { upstream: at.upstream, cursor: page.nextCursor } : at.upstream + 1 < listing.length ? { upstream: at.upstream + 1 } : undefined;
    return next === undefined ? { tools: page.tools } : { tools: page.tools, nextCursor: encodeCursor(next) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const upstream = context.upstreams.serving(name);
    const client = upstream === undefined ? unmapped : calling.get(upstream);
    if (client === undefined) throw new Error('the gateway has no upstream server');
    const given = request.params._meta?.[TOOL_CALL_ID_META_KEY];
    const progressToken = request.params._meta?.progressToken;
    const call = await client.callTool(
      {
        name,
        ...(request.params.arguments === undefined ? {} : { arguments: request.params.arguments }),
        tool_call_id: typeof given === 'string' && given.length > 0 ? given : nanoid(),
      },
      {
        signal: extra.signal,
        ...(progressToken === undefined
          ? {}
          : {
              resetTimeoutOnProgress: true,
              onprogress: (progress) => {
                void extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => undefined);
              },
            }),
      },
    );
    context.onToolCall?.(name, admissionMetaOf(call));
    return withAdmissionMeta(call);
  });
  return server;
};
