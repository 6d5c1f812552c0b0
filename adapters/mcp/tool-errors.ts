import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RefusalCode } from '../../domain/invocation';
import type { NotSentReason } from './call-outcome';

/**
 * The tool results the model receives when its call did not run, or ran with unknown effects. Each
 * names a fixed code the model (and whoever reads its transcript) can act on.
 */

/** The code a call refused before reaching the server carries; `tool_unmapped` is the wrapper's own. */
export type ToolCallRefusalCode = RefusalCode | 'tool_unmapped' | 'call_aborted' | NotSentReason;

export const refusedToolResult = (toolName: string, code: ToolCallRefusalCode): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `tool call refused (${code}): ${toolName} was not run` }],
});

export const unknownEffectsToolResult = (toolName: string, reason: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `tool call interrupted (${reason}): ${toolName} may or may not have run; do not repeat it` }],
});
