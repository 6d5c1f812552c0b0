export { operationsProjection, type OperationKind, type OuterOperationState, type ToolOperationState } from './projection';
export { childOperations, getOperation, OPERATION_DOMAIN, type OperationStatus } from './query';
