export { operationsProjection, type OperationKind, type OperationsViews, type OuterOperationState, type ToolOperationState } from './projection';
export { childOperations, getOperation, OPERATION_DOMAIN, type OperationsReadViews, type OperationStatus } from './query';
export type { OperationRow, OperationsReads, OperationsWrites } from './view';
