import type { EventStore, JsonValue, StorageFailure } from '../../domain/ports/event-store';

/**
 * The last event of a store, as its adapter holds it, for the checks a data directory makes at open
 * (is the store the one the views saw, is it readable to its end). `data()` parses the stored JSON on
 * demand and throws when it is not JSON, so a corrupt tail is found, not skipped.
 */
export type TailEvent = {
  readonly stream: string;
  readonly type: string;
  readonly position: bigint;
  readonly data: () => JsonValue;
};

export type TailRead = { readonly kind: 'tail'; readonly last: TailEvent | undefined } | StorageFailure;

/** What every adapter in this folder offers beside the port: its last event without reading the log. */
export interface TailReadable {
  readLast(): Promise<TailRead>;
}

export type OpenedEventStore = EventStore & TailReadable;

export const parsedLater = (text: string): (() => JsonValue) => () => JSON.parse(text) as JsonValue;
