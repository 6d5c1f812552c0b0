import type { RecordedEvent } from '../../domain/ports/event-store';
import type { InvocationOpened } from '../../domain/invocation';
import { parseInvocationStream } from '../../domain/streams';
import { PageMemory } from '../page-memory';
import type { Projection } from '../runner';
import type { OpenedFor, ParticipantHistoryWrites } from './view';

/**
 * The participant history: an index of the closed invocations, one row per invocation in the order they
 * closed, naming its participant, episode, invocation id and the revision of its stream's
 * `InvocationClosed`. The events stay in the store: the query reads each invocation's stream up to that
 * revision and renders its RAES behavior history with the domain's `invocationHistory` (see render.ts).
 * A rebuild reads the store once and writes about 150 bytes per invocation; it parses only
 * `InvocationOpened` (for the participant and the episode) and renders nothing. History is visible all
 * together when its invocation closes (docs/rules.md, history).
 *
 * Between opening and closing, an invocation's participant and episode wait in memory within a page; at
 * the end of the page what is still open is written to the views in the same transaction as the
 * checkpoint, so a restart resumes with it.
 */

/** The views this projection keeps its rows in. */
export interface ParticipantHistoryViews {
  readonly participantHistory: ParticipantHistoryWrites;
}

/** An opened invocation not closed yet; `persisted` when an earlier page kept it in the views. */
type Pending = OpenedFor & { readonly persisted: boolean };

/** Per views, the invocations opened during the page in hand, or read from what earlier pages kept. */
const pageBuffers = new PageMemory<Pending>();

/** The open invocation's participant and episode, by its stream: from this page's memory, else from the views. */
const pendingOf = (rows: ParticipantHistoryWrites, buffer: Map<string, Pending>, stream: string): Pending | undefined => {
  const inMemory = buffer.get(stream);
  if (inMemory !== undefined) return inMemory;
  const stored = rows.opened(stream);
  if (stored === undefined) return undefined;
  return { participant: stored.participant, episode: stored.episode, persisted: true };
};

const apply = (views: ParticipantHistoryViews, recorded: RecordedEvent): void => {
  const stream = recorded.stream;
  const name = parseInvocationStream(stream);
  if (name === undefined) return;
  const rows = views.participantHistory;
  // The engine appends each event under its own type, and each invocation's events to its own stream.
  const type = recorded.type;
  if (type === 'InvocationOpened') {
    const opening = recorded.data as unknown as InvocationOpened;
    pageBuffers.of(rows).set(stream, {
      participant: opening.port_values.participant_address,
      episode: name.episodeId,
      persisted: false,
    });
    return;
  }
  if (type !== 'InvocationClosed') return;
  const buffer = pageBuffers.of(rows);
  const pending = pendingOf(rows, buffer, stream);
  // An invocation whose opening this view never saw cannot form a history.
  if (pending === undefined) return;
  rows.appendClosed({ participant: pending.participant, episode: pending.episode, invocation: name.invocationActionInstanceId, closingRevision: Number(recorded.revision) });
  if (pending.persisted) rows.forgetOpened(stream);
  buffer.delete(stream);
};

/** Keeps the invocations opened during the page and still open in the views. */
const endPage = (views: ParticipantHistoryViews): void => {
  const rows = views.participantHistory;
  const buffer = pageBuffers.take(rows);
  if (buffer === undefined) return;
  for (const [stream, pending] of buffer) {
    if (!pending.persisted) rows.keepOpened(stream, pending);
  }
};

export const participantHistoryProjection: Projection<ParticipantHistoryViews> = {
  name: 'participant-history',
  // 5: open invocations kept by stream (episode and invocation); the episode read from the stream name.
  version: 5,
  setup(views) {
    views.participantHistory.setup();
  },
  reset(views) {
    pageBuffers.forget(views.participantHistory);
    views.participantHistory.reset();
  },
  apply,
  endPage,
  discardPending() {
    pageBuffers.clear();
  },
};
