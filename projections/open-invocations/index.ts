import type { RecordedEvent } from '../../domain/ports/event-store';
import {
  evolveInterrupted,
  initialInterruptedInvocation,
  interruptedEventOf,
  type InterruptedInvocation,
  type InvocationOpened,
} from '../../domain/invocation';
import { linkDigestOf } from '../../domain/integrity/chain';
import { parseInvocationStream } from '../../domain/streams';
import { PageMemory } from '../page-memory';
import type { Projection } from '../runner';
import type { OpenInvocationFold, OpenInvocationRow, OpenInvocationsReads, OpenInvocationsWrites } from './view';

export type { OpenInvocationFold, OpenInvocationRow, OpenInvocationsReads, OpenInvocationsWrites } from './view';

/**
 * An invocation is open from InvocationOpened until InvocationClosed; recovery after a crash closes
 * these. Each row also keeps what recovery decides from (the domain's interrupted-invocation fold:
 * unsettled tool actions and unresolved indeterminate ones) and the stream revision it reflects, so
 * recovery reads no invocation stream. Within a page the folds are kept in memory; each touched row is
 * written once at the end of the page, in the page's transaction, and an invocation that opens and
 * closes within the page is neither folded nor written.
 */

/** The views this projection keeps its rows in. */
export interface OpenInvocationsViews {
  readonly openInvocations: OpenInvocationsWrites;
}

/** An invocation the page opened: its row, written at the page's end with the fold, and the opening's position. */
type Opening = { readonly row: OpenInvocationRow; readonly position: number };

/**
 * An invocation the page in hand touched: closed by it, or still open with its fold, the events after
 * it not folded yet, and its opening when the page opened it. The events are folded at the page's end,
 * and only for an invocation still open: one opened and closed within the page is neither folded nor
 * written, only its row deleted (a row the stream may have had is gone either way).
 */
type PageInvocation = { readonly kind: 'closed' } | OpenInPage;

type OpenInPage = {
  readonly kind: 'open';
  readonly invocationId: string;
  readonly opening: Opening | undefined;
  readonly fold: OpenInvocationFold;
  readonly unfolded: RecordedEvent[];
};

const CLOSED: PageInvocation = { kind: 'closed' };

/** Per views, the invocations touched during the page in hand, by stream. */
const pageInvocations = new PageMemory<PageInvocation>();

const apply = (views: OpenInvocationsViews, recorded: RecordedEvent): void => {
  const stream = recorded.stream;
  const name = parseInvocationStream(stream);
  if (name === undefined) return;
  const rows = views.openInvocations;
  const invocationId = name.invocationActionInstanceId;
  const page = pageInvocations.of(rows);
  if (recorded.type === 'InvocationOpened') {
    const opening = recorded.data as unknown as InvocationOpened;
    const recovery = evolveInterrupted(initialInterruptedInvocation(), opening);
    const revision = Number(recorded.revision);
    const row: OpenInvocationRow = {
      invocation_action_instance_id: opening.invocation_action_instance_id,
      stream,
      participant_address: opening.port_values.participant_address,
      episode_id: name.episodeId,
      opened_at: opening.at,
      recovery,
      revision,
      link: linkDigestOf(recorded),
    };
    page.set(stream, { kind: 'open', invocationId, opening: { row, position: Number(recorded.position) }, fold: { recovery, revision, link: row.link }, unfolded: [] });
    return;
  }
  if (recorded.type === 'InvocationClosed') {
    page.set(stream, CLOSED);
    return;
  }
  const held = page.get(stream);
  // An invocation closed earlier in the page takes nothing more (a late resolution).
  if (held !== undefined) {
    if (held.kind === 'open') held.unfolded.push(recorded);
    return;
  }
  const fold = rows.fold(stream);
  // An invocation whose opening this view never saw, or one already closed.
  if (fold === undefined) return;
  page.set(stream, { kind: 'open', invocationId, opening: undefined, fold, unfolded: [recorded] });
};

/** Folds the events the page kept for an invocation still open. */
const folded = (held: OpenInPage): OpenInvocationFold => {
  const fold = held.fold;
  const events = held.unfolded;
  for (let i = 0; i < events.length; i++) {
    const recorded = events[i]!;
    const event = interruptedEventOf(recorded, fold.recovery, held.invocationId);
    if (event !== undefined) fold.recovery = evolveInterrupted(fold.recovery, event);
    fold.revision = Number(recorded.revision);
  }
  const last = events[events.length - 1];
  if (last !== undefined) fold.link = linkDigestOf(last);
  return fold;
};

/** Writes what the page did to each invocation it touched: a row opened, a fold moved on, a row closed. */
const endPage = (views: OpenInvocationsViews): void => {
  const rows = views.openInvocations;
  const page = pageInvocations.take(rows);
  if (page === undefined) return;
  for (const [stream, held] of page) {
    if (held.kind === 'closed') rows.close(stream);
    else if (held.opening !== undefined) rows.open(openedRow(held.opening.row, folded(held)), held.opening.position);
    else rows.updateFold(stream, folded(held));
  }
};

/** The row of an invocation the page opened, with the fold the page left it at. */
const openedRow = (opened: OpenInvocationRow, fold: OpenInvocationFold): OpenInvocationRow => ({
  invocation_action_instance_id: opened.invocation_action_instance_id,
  stream: opened.stream,
  participant_address: opened.participant_address,
  episode_id: opened.episode_id,
  opened_at: opened.opened_at,
  recovery: fold.recovery,
  revision: fold.revision,
  link: fold.link,
});

export const openInvocationsProjection: Projection<OpenInvocationsViews> = {
  name: 'open-invocations',
  // 3: keyed by stream (episode and invocation), so two episodes' invocations of one id never meet.
  // 4: each row keeps the link digest of the event at its revision.
  version: 4,
  setup(views) {
    views.openInvocations.setup();
  },
  reset(views) {
    pageInvocations.forget(views.openInvocations);
    views.openInvocations.reset();
  },
  apply,
  endPage,
  discardPending() {
    pageInvocations.clear();
  },
};

/** Invocations opened and not yet closed, of every episode, oldest first, with the fold recovery decides from. */
export const listOpenInvocations = (views: { readonly openInvocations: OpenInvocationsReads }): readonly OpenInvocationRow[] =>
  views.openInvocations.listOpen();
