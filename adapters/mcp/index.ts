export {
  AdmittedToolClient,
  outcomeOf,
  type AdmittedCallOptions,
  type AdmittedCallParams,
  type AdmittedToolCall,
  type AdmittedToolClientOptions,
  type ListedTools,
  type McpToolCaller,
} from './admitted-tool-client';
export { settlementOfError, settlementOfResult, type CallSettlement, type UnknownReason } from './call-outcome';
export { refusedToolResult, unknownEffectsToolResult, type ToolCallRefusalCode } from './tool-errors';
export {
  ToolMappingCodec,
  ToolRelationCodec,
  decodeToolMapping,
  relationOf,
  toolActionRequestFor,
  type ToolMapping,
  type ToolRelation,
} from './tool-mapping';
