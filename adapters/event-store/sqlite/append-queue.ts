import type { AppendResult, EventToAppend, ExpectedRevision, StorageFailure } from '../../../domain/ports/event-store';
import { describeError, storageFailure } from '../../../domain/ports/storage-failure';
import { dataTextOf, metadataTextOf } from '../stored-text';
import {
  APPENDED,
  CONFLICT,
  NO_STREAM,
  type AppendOutcome,
  type AppendRequest,
  type FlatAppends,
  type FlatOutcomes,
  type WireEvent,
  type WireExpectedRevision,
} from './append-batch';

/** An append waiting for its outcome: what its caller asked and how to tell it. */
export type PendingAppend = {
  readonly stream: string;
  readonly expectedRevision: ExpectedRevision;
  readonly resolve: (result: AppendResult) => void;
};

/** How the store hands appends to whoever owns the write connection. */
export interface AppendWriter {
  enqueue(stream: string, events: readonly EventToAppend[], expectedRevision: ExpectedRevision): Promise<AppendResult>;
  /** Writes what is queued, waits for every append in flight, and releases the write connection. */
  close(): Promise<void>;
}

const toWireExpected = (expected: ExpectedRevision): WireExpectedRevision =>
  typeof expected === 'string' ? expected : Number(expected);

const toWireEvent = (event: EventToAppend): WireEvent => ({
  id: event.id,
  type: event.type,
  data: dataTextOf(event),
  metadata: metadataTextOf(event),
});

const unstorable = (stream: string, error: unknown): StorageFailure =>
  storageFailure(`appending to '${stream}' failed: ${describeError(error)}`);

/** The append as the writer takes it, or why its events cannot be stored (data JSON cannot hold). */
export const toAppendRequest = (
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
): AppendRequest | StorageFailure => {
  try {
    return { stream, expected: toWireExpected(expected), events: events.map(toWireEvent) };
  } catch (error) {
    return unstorable(stream, error);
  }
};

/**
 * Adds the append to `flat` in the form decodeAppends reads; nothing is added when its events cannot
 * be stored (data JSON cannot hold), and the failure is returned instead.
 */
export const encodeAppend = (
  flat: FlatAppends,
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
): StorageFailure | undefined => {
  const encoded = new Array<string | null>(events.length * 4);
  try {
    for (let index = 0; index < events.length; index += 1) {
      const event = events[index]!;
      encoded[index * 4] = event.id;
      encoded[index * 4 + 1] = event.type;
      encoded[index * 4 + 2] = dataTextOf(event);
      encoded[index * 4 + 3] = metadataTextOf(event);
    }
  } catch (error) {
    return unstorable(stream, error);
  }
  flat.push(stream, toWireExpected(expected), events.length);
  for (let index = 0; index < encoded.length; index += 1) flat.push(encoded[index]!);
  return undefined;
};

const conflict = (pending: PendingAppend, actual: number): AppendResult => ({
  kind: 'version_conflict',
  stream: pending.stream,
  expected: pending.expectedRevision,
  actual: actual === NO_STREAM ? 'no_stream' : BigInt(actual),
});

const missingOutcome = (pending: PendingAppend): StorageFailure =>
  storageFailure(`the SQLite writer returned no outcome for the append to '${pending.stream}'`);

/** Resolves each pending append with its outcome; true when any of them was written. */
export const settleAppends = (pending: readonly PendingAppend[], outcomes: readonly AppendOutcome[]): boolean => {
  let anyAppended = false;
  for (let index = 0; index < pending.length; index += 1) {
    const outcome = outcomes[index];
    const append = pending[index]!;
    if (outcome === undefined) append.resolve(missingOutcome(append));
    else if (outcome.kind === 'appended') {
      anyAppended = true;
      append.resolve({ kind: 'appended', nextExpectedRevision: BigInt(outcome.next), lastPosition: BigInt(outcome.position) });
    } else if (outcome.kind === 'version_conflict') append.resolve(conflict(append, outcome.actual));
    else append.resolve(storageFailure(outcome.reason));
  }
  return anyAppended;
};

/** settleAppends for outcomes in flat form (encodeOutcomes). */
export const settleFlatAppends = (pending: readonly PendingAppend[], outcomes: FlatOutcomes): boolean => {
  const { codes, reasons } = outcomes;
  let anyAppended = false;
  for (let index = 0; index < pending.length; index += 1) {
    const append = pending[index]!;
    const at = index * 3;
    if (at + 2 >= codes.length) {
      append.resolve(missingOutcome(append));
      continue;
    }
    const kind = codes[at];
    if (kind === APPENDED) {
      anyAppended = true;
      append.resolve({ kind: 'appended', nextExpectedRevision: BigInt(codes[at + 1]!), lastPosition: BigInt(codes[at + 2]!) });
    } else if (kind === CONFLICT) append.resolve(conflict(append, codes[at + 1]!));
    else append.resolve(storageFailure(reasons[codes[at + 1]!] ?? 'the SQLite writer failed without a reason'));
  }
  return anyAppended;
};
