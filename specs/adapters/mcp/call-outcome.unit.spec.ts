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

describe('settlementOfError, with what the caller knows of the call', () => {
  it('completes partial_success when the client rejected a result that had arrived: the tool ran', () => {
    const rejected = new McpError(ErrorCode.InvalidParams, "Structured content does not match the tool's output schema");
    expect(settlementOfError(rejected, { aborted: false, answered: true })).toEqual({
      kind: 'completed',
      status: 'partial_success',
      diagnostic: 'tool_output_rejected',
    });
  });

  it('says not sent when the client refused before sending and nothing arrived', () => {
    const guard = new McpError(ErrorCode.InvalidRequest, 'Tool "t" requires task-based execution');
    expect(settlementOfError(guard, { aborted: false, refusedBeforeSending: 'tool_requires_task' })).toEqual({
      kind: 'not_sent',
      reason: 'tool_requires_task',
    });
  });

  it('still reads a JSON-RPC error with no result and no guard as the server failing the call', () => {
    expect(settlementOfError(new McpError(ErrorCode.InvalidRequest, 'x'), { aborted: false, answered: false })).toEqual({
      kind: 'completed',
      status: 'failed',
    });
  });

  it('puts an abort before everything else', () => {
    expect(settlementOfError(new McpError(ErrorCode.InvalidParams, 'x'), { aborted: true, answered: true })).toEqual({ kind: 'unknown', reason: 'aborted' });
  });
});
