export { participantHistoryProjection, type ParticipantHistoryViews } from './projection';
export {
  participantHistoryView,
  participantHistoryViewHeader,
  storedHistory,
  VISIBILITY_PROJECTION_REF,
  type HistoryViewBehaviorEvent,
  type ParticipantHistoryReadViews,
  type ParticipantHistoryView,
  type ParticipantHistoryViewHeader,
} from './query';
export type { HistoryFilter, HistoryIndexRow, OpenedFor, ParticipantHistoryReads, ParticipantHistoryWrites } from './view';
export { REBUILD_ADVICE, STORE_ADVICE, renderInvocationHistory, renderRecordedInvocationHistory, type HistoryUnavailable, type RenderedHistory } from './render';
export { verifyHistory, type AuditFinding, type AuditFindingCode } from './audit';
