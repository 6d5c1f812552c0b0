import { describeError, storageFailure, type AppendResult, type StorageFailure, type EventToAppend, type ExpectedRevision } from '../port';
import { NO_STREAM, type AppendOutcome, type AppendRequest, type WireEvent } from './append-batch';

/** An append waiting for its outcome: what the writer gets, and what its caller is told. */
export type PendingAppend = {
  readonly request: AppendRequest;
  readonly expectedRevision: ExpectedRevision;
  readonly resolve: (result: AppendResult) => void;
};

/** How the store hands appends to whoever owns the write connection. */
export interface AppendWriter {
  enqueue(stream: string, events: readonly EventToAppend[], expectedRevision: ExpectedRevision): Promise<AppendResult>;
  /** Writes what is queued, waits for every append in flight, and releases the write connection. */
  close(): Promise<void>;
}

const toWireEvent = (event: EventToAppend): WireEvent => ({
  id: event.id,
  type: event.type,
  data: JSON.stringify(event.data),
  metadata: event.metadata === undefined ? null : JSON.stringify(event.metadata),
});

/** The append as the writer takes it, or why its events cannot be stored (data JSON cannot hold). */
export const toAppendRequest = (
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
): AppendRequest | StorageFailure => {
  try {
    return { stream, expected: typeof expected === 'string' ? expected : Number(expected), events: events.map(toWireEvent) };
  } catch (error) {
    return storageFailure(`appending to '${stream}' failed: ${describeError(error)}`);
  }
};

export const toAppendResult = (outcome: AppendOutcome, pending: PendingAppend): AppendResult => {
  switch (outcome.kind) {
    case 'appended':
      return { kind: 'appended', nextExpectedRevision: BigInt(outcome.next), lastPosition: BigInt(outcome.position) };
    case 'version_conflict':
      return {
        kind: 'version_conflict',
        stream: pending.request.stream,
        expected: pending.expectedRevision,
        actual: outcome.actual === NO_STREAM ? 'no_stream' : BigInt(outcome.actual),
      };
    case 'storage_failure':
      return storageFailure(outcome.reason);
  }
};

/** Resolves each pending append with its outcome; true when any of them was written. */
export const settleAppends = (pending: readonly PendingAppend[], outcomes: readonly AppendOutcome[]): boolean => {
  let anyAppended = false;
  for (let index = 0; index < pending.length; index += 1) {
    const outcome = outcomes[index];
    const append = pending[index]!;
    if (outcome === undefined) {
      append.resolve(storageFailure(`the SQLite writer returned no outcome for the append to '${append.request.stream}'`));
      continue;
    }
    if (outcome.kind === 'appended') anyAppended = true;
    append.resolve(toAppendResult(outcome, append));
  }
  return anyAppended;
};
