import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { settlementOfError, settlementOfResult } from '../../../adapters/mcp';

/** How the end of a dispatched MCP call settles its tool action. */

describe('settlementOfResult', () => {
  it('completes a result as succeeded, and an isError result as failed', () => {
    expect(settlementOfResult({ content: [] })).toEqual({ kind: 'completed', status: 'succeeded' });
    expect(settlementOfResult({ content: [], isError: false })).toEqual({ kind: 'completed', status: 'succeeded' });
    expect(settlementOfResult({ content: [], isError: true })).toEqual({ kind: 'completed', status: 'failed' });
  });
});

describe('settlementOfError', () => {
  it('leaves the effects of a timed-out call unknown', () => {
    expect(settlementOfError(new McpError(ErrorCode.RequestTimeout, 'Request timed out'), false)).toEqual({
      kind: 'unknown',
      reason: 'timeout',
    });
  });

  it('leaves the effects of a call on a closed connection unknown', () => {
    expect(settlementOfError(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), false)).toEqual({
      kind: 'unknown',
      reason: 'connection_lost',
    });
  });

  it('leaves the effects of an aborted call unknown, whatever it threw', () => {
    expect(settlementOfError(new DOMException('aborted', 'AbortError'), true)).toEqual({ kind: 'unknown', reason: 'aborted' });
    expect(settlementOfError(new McpError(ErrorCode.RequestTimeout, 'x'), true)).toEqual({ kind: 'unknown', reason: 'aborted' });
  });

  it('fails a call the server answered with a JSON-RPC error', () => {
    expect(settlementOfError(new McpError(ErrorCode.InvalidParams, 'bad arguments'), false)).toEqual({
      kind: 'completed',
      status: 'failed',
    });
    expect(settlementOfError(new McpError(ErrorCode.MethodNotFound, 'no such tool'), false)).toEqual({
      kind: 'completed',
      status: 'failed',
    });
  });

  it('leaves the effects unknown for an error that is no answer of the server', () => {
    expect(settlementOfError(new Error('write EPIPE'), false)).toEqual({ kind: 'unknown', reason: 'transport_error' });
  });
});
