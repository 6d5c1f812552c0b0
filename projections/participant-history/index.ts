export { participantHistoryProjection } from './projection';
export {
  participantHistoryView,
  storedHistory,
  VISIBILITY_PROJECTION_REF,
  type HistoryFilter,
  type HistoryViewBehaviorEvent,
  type ParticipantHistoryView,
} from './query';
export { REBUILD_ADVICE, STORE_ADVICE, type HistoryUnavailable, type RenderedHistory } from './render';
export { verifyHistory, type AuditFinding, type AuditFindingCode } from './audit';
