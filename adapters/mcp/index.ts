export {
  AdmittedToolClient,
  outcomeOf,
  type AdmittedCallOptions,
  type AdmittedCallParams,
  type AdmittedToolCall,
  type AdmittedToolClientOptions,
  type ListedTools,
  type ListToolsParams,
  type McpToolCaller,
} from './admitted-tool-client';
export {
  ADMISSION_META_KEY,
  AdmittedClient,
  TOOL_CALL_ID_META_KEY,
  admissionMetaOf,
  withAdmissionMeta,
  type AdmissionMeta,
} from './admitted-client';
export {
  notSentReasonOf,
  settlementOfError,
  settlementOfResult,
  type CallCircumstances,
  type CallSettlement,
  type NotSentReason,
  type UnknownReason,
} from './call-outcome';
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
