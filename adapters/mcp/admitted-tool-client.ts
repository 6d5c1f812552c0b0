import { nanoid } from 'nanoid';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema, type CallToolResult, type ListToolsRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod/v4';
import type { ActionResult, InvocationPortValues, ToolActionRequest } from '../../domain/invocation';
import type { InvocationToolActionPort } from '../../domain/ports/invocation-port';
import { nestsTooDeep, notSentReasonOf, settlementOfError, settlementOfResult, type CallSettlement, type NotSentReason } from './call-outcome';
import { refusedToolResult, unknownEffectsToolResult, type ToolCallRefusalCode } from './tool-errors';
import { relationOf, toolActionRequestFor, type ToolMapping, type ToolRelation } from './tool-mapping';

/** The part of an SDK `Client` the wrapper uses. */
export type McpToolCaller = Pick<Client, 'callTool' | 'listTools'>;

export type ListedTools = Awaited<ReturnType<Client['listTools']>>;

export interface AdmittedCallParams {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
  /** The caller's identity for this call (an idempotency key); generated when absent. */
  readonly tool_call_id?: string;
}

export interface AdmittedCallOptions {
  /** Milliseconds; overrides the relation's `timeout_ms` and the wrapper's default. */
  readonly timeout?: number;
  readonly signal?: AbortSignal;
  /** The server's progress notifications for this call, as the SDK hands them. */
  readonly onprogress?: RequestOptions['onprogress'];
  /** A progress notification restarts the timeout (so a long tool that reports progress does not time out). */
  readonly resetTimeoutOnProgress?: boolean;
  /** Milliseconds the call may run in all, progress or not; the effects are unknown past it. */
  readonly maxTotalTimeout?: number;
}

/** A listing request: the cursor of the page to read (the server's `nextCursor`), if any. */
export type ListToolsParams = ListToolsRequest['params'];

/** How one call went. `result` is what the model receives; nothing of it went to the engine. */
export type AdmittedToolCall =
  | {
      readonly outcome: 'refused';
      readonly tool_call_id: string;
      readonly refusal: ToolCallRefusalCode;
      /** Present when the call was admitted and then not dispatched. */
      readonly action_instance_id?: string;
      readonly result: CallToolResult;
    }
  | {
      readonly outcome: 'succeeded' | 'failed' | 'partial_success';
      readonly tool_call_id: string;
      readonly action_instance_id: string;
      readonly result: CallToolResult;
    }
  | {
      readonly outcome: 'unknown';
      readonly tool_call_id: string;
      readonly action_instance_id: string;
      readonly reason: string;
      readonly result: CallToolResult;
    };

export interface AdmittedToolClientOptions {
  /** Milliseconds a call may run when neither the call nor its relation says; the SDK default when absent. */
  readonly defaultTimeoutMs?: number;
  /** Source of tool_call_ids for calls that bring none. */
  readonly newToolCallId?: () => string;
}

const isAborted = (signal: AbortSignal | undefined): boolean => signal !== undefined && signal.aborted;

const serverErrorResult = (error: unknown): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: error instanceof Error ? error.message : 'the tool call failed' }],
});

/**
 * An MCP client whose every tool call is first admitted as a tool action of one invocation: unmapped
 * tools and refused admissions never reach the server, the server is called only after an accepted
 * dispatch, and each call that ran is completed (isError -> failed) or, when its effects are unknown,
 * reported unknown. Only the relation and fixed codes go to the port.
 */
export class AdmittedToolClient {
  private readonly newToolCallId: () => string;
  /** Tools this wrapper's listings marked `execution.taskSupport: 'required'`. */
  private readonly taskRequired = new Set<string>();

  constructor(
    private readonly client: McpToolCaller,
    private readonly port: InvocationToolActionPort,
    private readonly mapping: ToolMapping,
    private readonly options: AdmittedToolClientOptions = {},
  ) {
    this.newToolCallId = options.newToolCallId ?? (() => nanoid());
  }

  /**
   * One page of the server's tools, keeping those the mapping declares: the only ones worth offering to
   * the model. The cursor and `nextCursor` pass through, so a caller pages as with the server itself
   * (a page may come back with fewer tools, or none, and still a `nextCursor`).
   */
  async listTools(params?: ListToolsParams, options: AdmittedCallOptions = {}): Promise<ListedTools> {
    const listed = await this.client.listTools(params, this.requestOptions(undefined, options));
    for (const tool of listed.tools) {
      if (tool.execution?.taskSupport === 'required') this.taskRequired.add(tool.name);
      else this.taskRequired.delete(tool.name);
    }
    return { ...listed, tools: listed.tools.filter((tool) => relationOf(this.mapping, tool.name) !== undefined) };
  }

  async callTool(params: AdmittedCallParams, options: AdmittedCallOptions = {}): Promise<AdmittedToolCall> {
    const toolCallId = params.tool_call_id ?? this.newToolCallId();
    const relation = relationOf(this.mapping, params.name);
    if (relation === undefined) return refused(toolCallId, params.name, 'tool_unmapped', undefined);
    if (isAborted(options.signal)) return refused(toolCallId, params.name, 'call_aborted', undefined);

    const request = toolActionRequestFor(this.port, toolCallId, relation);
    const unsendable = nestsTooDeep(params.arguments) ? 'arguments_too_deep' : notSentReasonOf(this.client, params.name, this.taskRequired);
    if (unsendable !== undefined) return this.withhold(toolCallId, params.name, request, unsendable);

    const dispatched = await this.admitAndDispatch(toolCallId, params.name, request, options.signal);
    if (typeof dispatched !== 'string') return dispatched;
    const actionInstanceId = dispatched;

    let settlement: CallSettlement;
    let result: CallToolResult;
    // Set when the server's result message reaches the client, before the client's own checks of it.
    let answered = false;
    const markingSchema = z.preprocess((value) => {
      answered = true;
      return value;
    }, CallToolResultSchema) as unknown as typeof CallToolResultSchema;
    try {
      const answer = await this.client.callTool(
        params.arguments === undefined ? { name: params.name } : { name: params.name, arguments: params.arguments },
        markingSchema,
        this.requestOptions(relation, options),
      );
      result = answer as CallToolResult;
      settlement = settlementOfResult(answer);
    } catch (error) {
      const refusedBeforeSending = answered ? undefined : notSentReasonOf(this.client, params.name, this.taskRequired, true);
      settlement = settlementOfError(error, {
        aborted: isAborted(options.signal),
        answered,
        ...(refusedBeforeSending === undefined ? {} : { refusedBeforeSending }),
      });
      result = settlement.kind === 'unknown' ? unknownEffectsToolResult(params.name, settlement.reason) : serverErrorResult(error);
    }

    if (settlement.kind === 'unknown') {
      await this.port.reportUnknown(actionInstanceId, settlement.reason);
      return { outcome: 'unknown', tool_call_id: toolCallId, action_instance_id: actionInstanceId, reason: settlement.reason, result };
    }
    const outcome =
      settlement.kind === 'not_sent'
        ? notSentOutcomeOf(this.port, actionInstanceId, relation, settlement.reason)
        : outcomeOf(this.port, actionInstanceId, relation, settlement.status);
    const completed = await this.port.complete(actionInstanceId, outcome);
    if (!completed.accepted) {
      // The call ran but its outcome was not accepted (say, undeclared evidence): its effects are unknown to the record.
      const reason = `outcome_refused:${completed.refusal}`;
      await this.port.reportUnknown(actionInstanceId, reason);
      return { outcome: 'unknown', tool_call_id: toolCallId, action_instance_id: actionInstanceId, reason, result };
    }
    if (settlement.kind === 'not_sent') {
      return { outcome: 'refused', tool_call_id: toolCallId, refusal: settlement.reason, action_instance_id: actionInstanceId, result };
    }
    return { outcome: settlement.status, tool_call_id: toolCallId, action_instance_id: actionInstanceId, result };
  }

  /**
   * A call the client would refuse before sending: admitted (so the record shows the model asked for
   * it) and withheld at once, never dispatched. A refused admission is answered as any refusal.
   */
  private async withhold(
    toolCallId: string,
    toolName: string,
    request: ToolActionRequest,
    reason: NotSentReason,
  ): Promise<AdmittedToolCall> {
    const admission = await this.port.admit(request);
    if (!admission.admitted) return refused(toolCallId, toolName, admission.refusal, undefined);
    await this.port.cancel(admission.action_instance_id);
    return refused(toolCallId, toolName, reason, admission.action_instance_id);
  }

  /**
   * Admits and dispatches the call: the dispatched action's id, or the refused call. Without a signal,
   * one port call (one durable append); with one, admit then dispatch, so that an abort between the two
   * withholds the action instead of dispatching it. An admitted action that is not dispatched is
   * withheld now rather than left open until the invocation returns.
   */
  private async admitAndDispatch(
    toolCallId: string,
    toolName: string,
    request: ToolActionRequest,
    signal: AbortSignal | undefined,
  ): Promise<string | AdmittedToolCall> {
    if (signal === undefined) {
      const dispatched = await this.port.admitAndDispatch(request);
      if (!dispatched.admitted) return refused(toolCallId, toolName, dispatched.refusal, undefined);
      if (dispatched.accepted) return dispatched.action_instance_id;
      await this.port.cancel(dispatched.action_instance_id);
      return refused(toolCallId, toolName, dispatched.refusal, dispatched.action_instance_id);
    }
    const admission = await this.port.admit(request);
    if (!admission.admitted) return refused(toolCallId, toolName, admission.refusal, undefined);
    const actionInstanceId = admission.action_instance_id;
    if (isAborted(signal)) {
      await this.port.cancel(actionInstanceId);
      return refused(toolCallId, toolName, 'call_aborted', actionInstanceId);
    }
    const receipt = await this.port.dispatch(actionInstanceId);
    if (receipt.accepted) return actionInstanceId;
    await this.port.cancel(actionInstanceId);
    return refused(toolCallId, toolName, receipt.refusal, actionInstanceId);
  }

  private requestOptions(relation: ToolRelation | undefined, options: AdmittedCallOptions): RequestOptions {
    const timeout = options.timeout ?? relation?.timeout_ms ?? this.options.defaultTimeoutMs;
    const request: { -readonly [K in keyof RequestOptions]: RequestOptions[K] } = {};
    if (timeout !== undefined) request.timeout = timeout;
    if (options.signal !== undefined) request.signal = options.signal;
    if (options.onprogress !== undefined) request.onprogress = options.onprogress;
    if (options.resetTimeoutOnProgress !== undefined) request.resetTimeoutOnProgress = options.resetTimeoutOnProgress;
    if (options.maxTotalTimeout !== undefined) request.maxTotalTimeout = options.maxTotalTimeout;
    return request;
  }
}

const refused = (
  toolCallId: string,
  toolName: string,
  code: ToolCallRefusalCode,
  actionInstanceId: string | undefined,
): AdmittedToolCall =>
  actionInstanceId === undefined
    ? { outcome: 'refused', tool_call_id: toolCallId, refusal: code, result: refusedToolResult(toolName, code) }
    : {
        outcome: 'refused',
        tool_call_id: toolCallId,
        refusal: code,
        action_instance_id: actionInstanceId,
        result: refusedToolResult(toolName, code),
      };

/** The typed outcome of a call that ran: identity, the relation's contract and declared evidence, no content. */
export const outcomeOf = (
  port: InvocationPortValues,
  actionInstanceId: string,
  relation: ToolRelation,
  status: 'succeeded' | 'failed' | 'partial_success',
): ActionResult => {
  const outcome: {
    -readonly [K in keyof ActionResult]: ActionResult[K];
  } = {
    status,
    participant_address: port.participant_address,
    episode_id: port.episode_id,
    action_instance_id: actionInstanceId,
    action_contract_address: relation.action_contract_address,
    observation_point: port.observation_point,
  };
  if (relation.evidence_refs !== undefined && relation.evidence_refs.length > 0) outcome.evidence_refs = relation.evidence_refs;
  if (status === 'failed') outcome.failure_class = 'backend_error';
  if (status === 'partial_success') {
    // The tool ran and answered; the client rejected its answer against the tool's output schema.
    outcome.failure_class = 'partial_success';
    outcome.diagnostics = ['tool_output_rejected'];
  }
  return outcome;
};

/** A dispatched call the client then refused to send: the tool never ran, and the record says so. */
const notSentOutcomeOf = (port: InvocationPortValues, actionInstanceId: string, relation: ToolRelation, reason: NotSentReason): ActionResult => ({
  status: 'rejected',
  participant_address: port.participant_address,
  episode_id: port.episode_id,
  action_instance_id: actionInstanceId,
  action_contract_address: relation.action_contract_address,
  observation_point: port.observation_point,
  failure_class: 'unsupported_action',
  diagnostics: [reason],
});
