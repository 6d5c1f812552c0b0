import type { InterruptedInvocation } from '../../domain/invocation';
import type { ViewRows } from '../../domain/ports/views';

/** An open invocation as the view lists it. */
export interface OpenInvocationRow {
  readonly invocation_action_instance_id: string;
  readonly stream: string;
  readonly participant_address: string;
  readonly episode_id: string;
  readonly opened_at: string;
  /** The interrupted-invocation fold of the stream up to `revision`. */
  readonly recovery: InterruptedInvocation;
  readonly revision: number;
  /** The chain link digest (docs/integrity.md) of the stream's event at `revision`; null when it carries none. */
  readonly link: string | null;
}

/** The fold kept for an open invocation and the revision of its stream it reflects. */
export interface OpenInvocationFold {
  recovery: InterruptedInvocation;
  revision: number;
  /** The link digest of the stream's event at `revision`, or null. */
  link: string | null;
}

/**
 * What the open-invocations projection writes, and the lookup its fold needs. Rows are keyed by the
 * invocation's stream, which names its episode: invocation ids repeat across episodes.
 */
export interface OpenInvocationsWrites extends ViewRows {
  /** Records an invocation just opened (or replaces its row); `position` orders the list. */
  open(row: OpenInvocationRow, position: number): void;
  /** The fold kept for an open invocation's stream; undefined when the view holds no such open invocation. */
  fold(stream: string): OpenInvocationFold | undefined;
  updateFold(stream: string, fold: OpenInvocationFold): void;
  close(stream: string): void;
}

/** What the open-invocations queries read. */
export interface OpenInvocationsReads {
  /** Invocations opened and not yet closed, in the order they opened; empty before the first page. */
  listOpen(): readonly OpenInvocationRow[];
}
