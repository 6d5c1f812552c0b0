/**
 * raes-tool-actions as a library: `createEngine()` wires the event store, the views, the data
 * directory's lock and the runtime manager as the CLI does; the rest is what a harness, an MCP client
 * wrapper or a gateway built on the engine needs.
 */

export { createEngine, EngineNotCreated, type CreateEngineOptions, type Engine } from './adapters/engine/create-engine';

// Participant runtimes, the invocation port, and the port over HTTP.
export {
  HarnessRuntime,
  PlainRuntime,
  RuntimeManager,
  RegistrationRefused,
  toolActionRequestFor,
  type AdmitAndDispatchResult,
  type AdmitResult,
  type AttachedPort,
  type DispatchReceipt,
  type Harness,
  type InvocationToolActionPort,
  type OuterActionRequest,
  type ParticipantRuntime,
  type ParticipantSnapshot,
  type RemoteAccess,
  type RuntimeManagerOptions,
  type RuntimeProgress,
  type SettleReceipt,
} from './domain/application';
export { RemoteInvocationPort, RemotePortRefused, RemotePortServer } from './adapters/http';
export type { ActionResult, InvocationPortValues, RefusalCode, ToolActionRequest } from './domain/invocation';

// MCP: the admitted client wrapper, the SDK-shaped drop-in, the gateway.
export {
  ADMISSION_META_KEY,
  AdmittedClient,
  AdmittedToolClient,
  TOOL_CALL_ID_META_KEY,
  decodeToolMapping,
  type AdmissionMeta,
  type AdmittedCallOptions,
  type AdmittedToolCall,
  type ToolMapping,
  type ToolRelation,
} from './adapters/mcp';
export { loadGatewayConfig, startGatewayRuntime, type GatewayConfig, type GatewayRuntime } from './adapters/mcp/gateway';

// Scenario and manifest loading, event stores.
export { loadScenario, type CompiledScenario, type Diagnostic } from './domain/scenario';
export { loadManifestDocument, type ManifestDocument } from './domain/manifest';
export { MemoryEventStore, openEventStore, openSqliteEventStore, type EventStore } from './adapters/event-store';
export type { AuditReport } from './adapters/cli/audit-report';
