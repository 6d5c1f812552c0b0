import type { RecordedEvent } from '../../domain/ports/event-store';
import {
  evolveInterrupted,
  initialInterruptedInvocation,
  interruptedEventOf,
  type InterruptedInvocation,
  type InvocationOpened,
} from '../../domain/invocation';
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
 * written once at the end of the page, in the page's transaction.
 */

/** The views this projection keeps its rows in. */
export interface OpenInvocationsViews {
  readonly openInvocations: OpenInvocationsWrites;
}

/** Per views, the open invocations touched during the page in hand. */
const pageFolds = new PageMemory<OpenInvocationFold>();

/** The invocation's fold, by its stream: from this page's memory, else from its row; undefined when it is not open here. */
const foldOf = (rows: OpenInvocationsWrites, folds: Map<string, OpenInvocationFold>, stream: string): OpenInvocationFold | undefined => {
  const inMemory = folds.get(stream);
  if (inMemory !== undefined) return inMemory;
  const fold = rows.fold(stream);
  if (fold === undefined) return undefined;
  folds.set(stream, fold);
  return fold;
};

const apply = (views: OpenInvocationsViews, recorded: RecordedEvent): void => {
  const stream = recorded.stream;
  const name = parseInvocationStream(stream);
  if (name === undefined) return;
  const rows = views.openInvocations;
  const invocationId = name.invocationActionInstanceId;
  const revision = Number(recorded.revision);
  const folds = pageFolds.of(rows);
  if (recorded.type === 'InvocationOpened') {
    const opening = recorded.data as unknown as InvocationOpened;
    const recovery = evolveInterrupted(initialInterruptedInvocation(), opening);
    rows.open(
      {
        invocation_action_instance_id: opening.invocation_action_instance_id,
        stream,
        participant_address: opening.port_values.participant_address,
        episode_id: name.episodeId,
        opened_at: opening.at,
        recovery,
        revision,
      },
      Number(recorded.position),
    );
    folds.set(stream, { recovery, revision });
    return;
  }
  if (recorded.type === 'InvocationClosed') {
    folds.delete(stream);
    rows.close(stream);
    return;
  }
  const fold = foldOf(rows, folds, stream);
  // An invocation whose opening this view never saw, or one already closed (a late resolution).
  if (fold === undefined) return;
  const event = interruptedEventOf(recorded, fold.recovery, invocationId);
  if (event !== undefined) fold.recovery = evolveInterrupted(fold.recovery, event);
  fold.revision = revision;
};

/** Writes each fold touched during the page to its row. */
const endPage = (views: OpenInvocationsViews): void => {
  const rows = views.openInvocations;
  const folds = pageFolds.take(rows);
  if (folds === undefined) return;
  for (const [stream, fold] of folds) rows.updateFold(stream, fold);
};

export const openInvocationsProjection: Projection<OpenInvocationsViews> = {
  name: 'open-invocations',
  // 3: keyed by stream (episode and invocation), so two episodes' invocations of one id never meet.
  version: 3,
  setup(views) {
    views.openInvocations.setup();
  },
  reset(views) {
    pageFolds.forget(views.openInvocations);
    views.openInvocations.reset();
  },
  apply,
  endPage,
  discardPending() {
    pageFolds.clear();
  },
};

/** Invocations opened and not yet closed, of every episode, oldest first, with the fold recovery decides from. */
export const listOpenInvocations = (views: { readonly openInvocations: OpenInvocationsReads }): readonly OpenInvocationRow[] =>
  views.openInvocations.listOpen();
