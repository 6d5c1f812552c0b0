import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * What a dispatched MCP call's end means for its tool action. Only the fact of an answer and its
 * `isError` flag are read; the content of a result or an error is never looked at here.
 */
export type CallSettlement =
  | { readonly kind: 'completed'; readonly status: 'succeeded' | 'failed' }
  /**
   * The tool ran and answered, and the client rejected the answer afterwards (a result that breaks the
   * tool's output schema, or is no CallToolResult at all): the effect happened, the model got an error.
   */
  | { readonly kind: 'completed'; readonly status: 'partial_success'; readonly diagnostic: 'tool_output_rejected' }
  /** The client refused the call before sending it: the tool did not run. */
  | { readonly kind: 'not_sent'; readonly reason: NotSentReason }
  /** The call may have run or not: a timeout, an abort, a lost connection, a request that may not have left. */
  | { readonly kind: 'unknown'; readonly reason: UnknownReason };

export type UnknownReason = 'timeout' | 'aborted' | 'connection_lost' | 'transport_error';

/** Why the client did not send a call: the SDK's own guards, checked before and after the fact. */
export type NotSentReason = 'tool_requires_task' | 'client_not_connected' | 'arguments_too_deep';

/**
 * The deepest nesting of arrays and objects a call's arguments may have. Deeper ones overflow the
 * stack of the client's own serialisation before a byte is sent, which would leave a call that never
 * left recorded as one whose effects are unknown; no tool's input schema nests so deep.
 */
export const MAX_ARGUMENT_DEPTH = 256;

/** Whether `value` nests arrays and objects deeper than MAX_ARGUMENT_DEPTH (walked without recursion). */
export const nestsTooDeep = (value: unknown): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_ARGUMENT_DEPTH) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
};

/** What the caller knows of a failed call besides its error. */
export interface CallCircumstances {
  /** The caller's AbortSignal had fired. */
  readonly aborted: boolean;
  /** A result message from the server reached the client (it was then rejected on the client side). */
  readonly answered?: boolean;
  /** The client's guard that refuses before sending applies to this call (see `notSentReasonOf`). */
  readonly refusedBeforeSending?: NotSentReason;
}

/** A result arrived: `isError` means the tool ran and reported failure. */
export const settlementOfResult = (result: object): CallSettlement => ({
  kind: 'completed',
  status: (result as { readonly isError?: unknown }).isError === true ? 'failed' : 'succeeded',
});

/**
 * callTool threw. In order:
 * - the caller aborted: unknown (a cancelled MCP call may still have run);
 * - a result had arrived and the client rejected it (output schema): the tool ran, partial_success;
 * - the client's pre-send guard applies and no answer arrived: not sent, the tool did not run;
 * - a timeout or a closed connection: unknown;
 * - any other McpError is the server's JSON-RPC error answer (unknown tool, invalid arguments): failed;
 * - anything else may or may not have left: unknown.
 * `circumstances` may be a boolean (aborted), as in earlier releases.
 */
export const settlementOfError = (error: unknown, circumstances: boolean | CallCircumstances): CallSettlement => {
  const known: CallCircumstances = typeof circumstances === 'boolean' ? { aborted: circumstances } : circumstances;
  if (known.aborted) return { kind: 'unknown', reason: 'aborted' };
  if (known.answered === true) return { kind: 'completed', status: 'partial_success', diagnostic: 'tool_output_rejected' };
  if (known.refusedBeforeSending !== undefined) return { kind: 'not_sent', reason: known.refusedBeforeSending };
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return { kind: 'unknown', reason: 'timeout' };
    if (error.code === ErrorCode.ConnectionClosed) return { kind: 'unknown', reason: 'connection_lost' };
    return { kind: 'completed', status: 'failed' };
  }
  return { kind: 'unknown', reason: 'transport_error' };
};

/** The parts of an SDK Client its pre-send guards read; `isToolTaskRequired` is not in its typings. */
interface GuardedClient {
  readonly transport?: unknown;
  readonly isToolTaskRequired?: (toolName: string) => boolean;
}

/**
 * Whether the SDK client would refuse this call before sending anything: a tool listed with
 * `execution.taskSupport: 'required'` (plain callTool throws for it), or a client with no transport.
 * `taskRequired` holds the tools the caller's own listing marked required. After a call failed, only
 * the task guard is asked (`afterFailure`): a connection lost during the call also leaves no transport.
 */
export const notSentReasonOf = (
  client: object,
  toolName: string,
  taskRequired: ReadonlySet<string>,
  afterFailure = false,
): NotSentReason | undefined => {
  const guarded = client as GuardedClient;
  if (!afterFailure && 'transport' in client && guarded.transport === undefined) return 'client_not_connected';
  if (taskRequired.has(toolName)) return 'tool_requires_task';
  if (typeof guarded.isToolTaskRequired === 'function' && guarded.isToolTaskRequired.call(client, toolName) === true) {
    return 'tool_requires_task';
  }
  return undefined;
};
