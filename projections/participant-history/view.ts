import type { ViewRows } from '../../domain/ports/views';

/** One row of the index: a closed invocation and where its stream closed. */
export type HistoryIndexRow = {
  readonly participant: string;
  readonly episode: string;
  readonly invocation: string;
  readonly closingRevision: number;
};

export type HistoryFilter = {
  readonly participant?: string;
  readonly episode?: string;
  readonly invocation?: string;
};

/** Whether an index row is one the filter asks for (views kept in memory filter so; the SQLite view in SQL). */
export const matchesHistoryFilter = (row: HistoryIndexRow, filter: HistoryFilter): boolean =>
  (filter.participant === undefined || row.participant === filter.participant) &&
  (filter.episode === undefined || row.episode === filter.episode) &&
  (filter.invocation === undefined || row.invocation === filter.invocation);

/** An invocation opened and not closed yet: whose it is. */
export interface OpenedFor {
  readonly participant: string;
  readonly episode: string;
}

/** What the participant-history projection writes, and the lookup its fold needs. */
export interface ParticipantHistoryWrites extends ViewRows {
  /** Adds a closed invocation's row after every row added before it. */
  appendClosed(row: HistoryIndexRow): void;
  /** Keeps an invocation still open at a page's end, by its stream (which names its episode), for the page that closes it. */
  keepOpened(stream: string, openedFor: OpenedFor): void;
  /** An invocation's stream kept open by an earlier page; undefined when none is. */
  opened(stream: string): OpenedFor | undefined;
  forgetOpened(stream: string): void;
}

/** What the participant-history queries read. */
export interface ParticipantHistoryReads {
  /** The index rows of the closed invocations, in the order they closed, narrowed by the filter; empty before the first page. */
  closedInvocations(filter: HistoryFilter): readonly HistoryIndexRow[];
  /** The same rows one at a time, none kept: for a reader that looks at each once over a long history. */
  eachClosedInvocation(filter: HistoryFilter): Iterable<HistoryIndexRow>;
}
