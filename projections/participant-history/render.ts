import type { EventStore, RecordedEvent } from '../../domain/ports/event-store';
import { describeError } from '../../domain/ports/storage-failure';
import { foldInvocationEvents, invocationHistory, type BehaviorHistoryEvent, type InvocationEvent } from '../../domain/invocation';
import { invocationStream } from '../../domain/streams';
import type { HistoryIndexRow } from './view';

/**
 * Renders the participant history at query time: the view holds an index of closed invocations (see
 * projection.ts), the events stay in the store. Each row's invocation stream is read up to the revision
 * of its `InvocationClosed` (a later operator resolution does not rewrite history) and folded, and the
 * domain's `invocationHistory` renders its RAES behavior history.
 */

export type { HistoryIndexRow } from './view';

/**
 * The history cannot be rendered: the store could not be read, or it does not hold what the view's
 * index says (a damaged or foreign views database). `advice` says what to do next.
 */
export type HistoryUnavailable = {
  readonly kind: 'history_unavailable';
  readonly invocation_action_instance_id: string;
  readonly reason: string;
  readonly advice: string;
};

export type RenderedHistory = { readonly kind: 'history'; readonly events: readonly BehaviorHistoryEvent[] } | HistoryUnavailable;

export const REBUILD_ADVICE =
  'the view no longer matches the event store: rebuild it with `raes-tools projections rebuild participant-history`';
export const STORE_ADVICE = 'check that the event store can be read, then ask again';

const historyUnavailable = (row: HistoryIndexRow, reason: string, advice: string): HistoryUnavailable => ({
  kind: 'history_unavailable',
  invocation_action_instance_id: row.invocation,
  reason,
  advice,
});

/** One closed invocation's behavior history, read from its stream (an empty list when it has none). */
export const renderInvocationHistory = async (
  store: EventStore,
  row: HistoryIndexRow,
): Promise<readonly BehaviorHistoryEvent[] | HistoryUnavailable> => {
  const read = await store.readStream(invocationStream(row.episode, row.invocation), { maxCount: row.closingRevision + 1 });
  if (read.kind !== 'read') return historyUnavailable(row, read.reason, STORE_ADVICE);
  return renderRecordedInvocationHistory(row, read.events);
};

/**
 * The same, from the stream's events already read from its first revision (a reader that reads the
 * whole stream once for other reasons too); events after the row's closing revision are ignored.
 */
export const renderRecordedInvocationHistory = (
  row: HistoryIndexRow,
  streamEvents: readonly RecordedEvent[],
): readonly BehaviorHistoryEvent[] | HistoryUnavailable => {
  const stream = invocationStream(row.episode, row.invocation);
  const recorded = streamEvents.length > row.closingRevision + 1 ? streamEvents.slice(0, row.closingRevision + 1) : streamEvents;
  const where = `the view says invocation ${row.invocation} closed at revision ${row.closingRevision} of stream '${stream}'`;
  if (recorded.length !== row.closingRevision + 1) {
    const held = recorded.length === 0 ? 'the store holds no such stream' : `the stream ends at revision ${recorded.length - 1}`;
    return historyUnavailable(row, `${where}, but ${held}`, REBUILD_ADVICE);
  }
  const closing = recorded[row.closingRevision]!;
  if (closing.type !== 'InvocationClosed') {
    return historyUnavailable(row, `${where}, but that event is ${closing.type}`, REBUILD_ADVICE);
  }
  const events = new Array<InvocationEvent>(recorded.length);
  for (let i = 0; i < recorded.length; i++) events[i] = recorded[i]!.data as unknown as InvocationEvent;
  try {
    const state = foldInvocationEvents(events);
    if (state.status !== 'opened' || state.lifecycle.status !== 'closed') {
      return historyUnavailable(row, `${where}, but its events do not fold to a closed invocation`, REBUILD_ADVICE);
    }
    const port = state.portValues;
    if (port.participant_address !== row.participant || port.episode_id !== row.episode) {
      return historyUnavailable(
        row,
        `${where} for participant ${row.participant} in episode ${row.episode}, but the stream is ${port.participant_address}'s in episode ${port.episode_id}`,
        REBUILD_ADVICE,
      );
    }
    return invocationHistory(state);
  } catch (error) {
    return historyUnavailable(row, `${where}, but rendering its history failed: ${describeError(error)}`, REBUILD_ADVICE);
  }
};

/** The histories of the rows, in their order, or the first row that cannot be rendered. */
export const renderHistory = async (store: EventStore, rows: readonly HistoryIndexRow[]): Promise<RenderedHistory> => {
  const history: BehaviorHistoryEvent[] = [];
  for (const row of rows) {
    const rendered = await renderInvocationHistory(store, row);
    if ('kind' in rendered) return rendered;
    for (const event of rendered) history.push(event);
  }
  return { kind: 'history', events: history };
};
