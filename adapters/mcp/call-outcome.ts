import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * What a dispatched MCP call's end means for its tool action. Only the fact of an answer and its
 * `isError` flag are read; the content of a result or an error is never looked at here.
 */
export type CallSettlement =
  | { readonly kind: 'completed'; readonly status: 'succeeded' | 'failed' }
  /** The call may have run or not: a timeout, an abort, a lost connection, a request that may not have left. */
  | { readonly kind: 'unknown'; readonly reason: UnknownReason };

export type UnknownReason = 'timeout' | 'aborted' | 'connection_lost' | 'transport_error';

/** A result arrived: `isError` means the tool ran and reported failure. */
export const settlementOfResult = (result: object): CallSettlement => ({
  kind: 'completed',
  status: (result as { readonly isError?: unknown }).isError === true ? 'failed' : 'succeeded',
});

/**
 * callTool threw. A JSON-RPC error answered by the server (unknown tool, invalid arguments, a result
 * that failed its output schema) is a definite answer: failed. A timeout, an abort or a closed
 * connection leaves the effects unknown, since a cancelled MCP call may still have run; so does any
 * error that is not an MCP answer (the request may or may not have been sent).
 */
export const settlementOfError = (error: unknown, aborted: boolean): CallSettlement => {
  if (aborted) return { kind: 'unknown', reason: 'aborted' };
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return { kind: 'unknown', reason: 'timeout' };
    if (error.code === ErrorCode.ConnectionClosed) return { kind: 'unknown', reason: 'connection_lost' };
    return { kind: 'completed', status: 'failed' };
  }
  return { kind: 'unknown', reason: 'transport_error' };
};
