import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { InvocationToolActionPort } from '../../domain/ports/invocation-port';
import { AdmittedToolClient, type AdmittedToolCall, type AdmittedToolClientOptions, type ListedTools, type ListToolsParams, type McpToolCaller } from './admitted-tool-client';
import type { ToolMapping } from './tool-mapping';

/** The `_meta` key of a CallToolResult that says how the engine admitted the call. */
export const ADMISSION_META_KEY = 'raes-tool-actions/admission';
/** The `_meta` key of a call's params that carries the caller's tool_call_id (an idempotency key). */
export const TOOL_CALL_ID_META_KEY = 'raes-tool-actions/tool_call_id';

/** What `_meta[ADMISSION_META_KEY]` holds: identities and codes only, never content. */
export interface AdmissionMeta {
  readonly outcome: AdmittedToolCall['outcome'];
  readonly tool_call_id: string;
  readonly action_instance_id?: string;
  /** The refusal code, for a refused call. */
  readonly refusal?: string;
  /** Why the effects are unknown, for an unknown one. */
  readonly reason?: string;
}

export const admissionMetaOf = (call: AdmittedToolCall): AdmissionMeta => {
  const meta: { -readonly [K in keyof AdmissionMeta]: AdmissionMeta[K] } = { outcome: call.outcome, tool_call_id: call.tool_call_id };
  if (call.action_instance_id !== undefined) meta.action_instance_id = call.action_instance_id;
  if (call.outcome === 'refused') meta.refusal = call.refusal;
  if (call.outcome === 'unknown') meta.reason = call.reason;
  return meta;
};

/** The model's result with the admission added to its `_meta`. */
export const withAdmissionMeta = (call: AdmittedToolCall): CallToolResult => ({
  ...call.result,
  _meta: { ...(call.result._meta ?? {}), [ADMISSION_META_KEY]: admissionMetaOf(call) },
});

const toolCallIdOf = (params: CallToolRequest['params']): string | undefined => {
  const value = params._meta?.[TOOL_CALL_ID_META_KEY];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
};

/**
 * The SDK Client's `callTool` and `listTools`, with every call admitted as a tool action: it drops in
 * where agent code calls a `Client`. `callTool` always resolves with a CallToolResult (a refusal or
 * unknown effects are `isError` results the model can read); `_meta[ADMISSION_META_KEY]` says what the
 * engine decided. A `resultSchema` argument is accepted for the signature's sake: results are always
 * read as CallToolResult.
 */
export class AdmittedClient {
  readonly admitted: AdmittedToolClient;

  constructor(client: McpToolCaller, port: InvocationToolActionPort, mapping: ToolMapping, options: AdmittedToolClientOptions = {}) {
    this.admitted = new AdmittedToolClient(client, port, mapping, options);
  }

  listTools(params?: ListToolsParams, options?: RequestOptions): Promise<ListedTools> {
    return this.admitted.listTools(params, options ?? {});
  }

  async callTool(params: CallToolRequest['params'], _resultSchema?: unknown, options?: RequestOptions): Promise<CallToolResult> {
    const toolCallId = toolCallIdOf(params);
    const call = await this.admitted.callTool(
      {
        name: params.name,
        ...(params.arguments === undefined ? {} : { arguments: params.arguments }),
        ...(toolCallId === undefined ? {} : { tool_call_id: toolCallId }),
      },
      options ?? {},
    );
    return withAdmissionMeta(call);
  }
}
