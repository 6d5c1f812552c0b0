/**
 * The event-store port: what the engine needs from any store, and nothing about invocations.
 *
 * Expected conditions (a version conflict, a store that cannot be reached or written) are values,
 * never thrown: the command handler retries `version_conflict` and turns `storage_failure` into
 * `ledger_unavailable`.
 */

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;
export type JsonObject = { readonly [key: string]: JsonValue };

/** An event to append. Its id is unique within the stream; re-appending the same ids is idempotent. */
export type EventToAppend = {
  readonly id: string;
  readonly type: string;
  readonly data: JsonValue;
  readonly metadata?: JsonObject;
  /**
   * The JSON text of `data` (`JSON.stringify(data)`, or its canonical JSON), when the caller has
   * serialised it already (to derive the event's id, say): a store that writes JSON text writes this
   * instead of serialising `data` again.
   */
  readonly dataJson?: string;
  /**
   * True when `dataJson` is the canonical JSON of `data` (docs/integrity.md): the chain digests that
   * text as it is instead of writing `data` canonically a second time.
   */
  readonly dataJsonCanonical?: boolean;
  /**
   * The event's data digest (docs/integrity.md: the SHA-256 of its type and its data's canonical
   * JSON, in lowercase hex as `dataDigest` writes it), when the caller has taken it already (to derive
   * the event's id, say): the chain writes it into its link as it is, unescaped. Any other value breaks
   * the event's link, since the check takes the digest again from the stored data.
   */
  readonly dataDigest?: string;
  /** `JSON.stringify(metadata)`, when the caller has written it already (the chain writes its link's text). */
  readonly metadataJson?: string;
};

/** An event as the store recorded it. Revisions start at 0 in each stream; positions grow across all streams. */
export type RecordedEvent = {
  readonly id: string;
  readonly type: string;
  readonly data: JsonValue;
  readonly metadata: JsonObject | undefined;
  readonly stream: string;
  readonly revision: bigint;
  readonly position: bigint;
  readonly recordedAt: Date;
  /**
   * `data` as the store holds it, JSON text, when the store keeps it so (SQLite): a reader that only
   * keeps or forwards the event can take it without parsing `data` and serializing it again.
   */
  readonly dataJson?: string;
};

/** What the stream must look like for an append to go ahead; a number or bigint is the exact last revision. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | bigint | number;

/** The stream's last revision, or `no_stream` when nothing was ever appended to it. */
export type CurrentRevision = bigint | 'no_stream';

export type Appended = {
  readonly kind: 'appended';
  /** Revision of the last event now in the stream: the expected revision of the next append. */
  readonly nextExpectedRevision: bigint;
  /** Global position of the last event of this append. */
  readonly lastPosition: bigint;
};

export type VersionConflict = {
  readonly kind: 'version_conflict';
  readonly stream: string;
  readonly expected: ExpectedRevision;
  readonly actual: CurrentRevision;
};

export type StorageFailure = {
  readonly kind: 'storage_failure';
  /** A sentence for an operator: what failed and where. */
  readonly reason: string;
};

export type AppendResult = Appended | VersionConflict | StorageFailure;

export type EventsRead = { readonly kind: 'read'; readonly events: readonly RecordedEvent[] };
export type ReadResult = EventsRead | StorageFailure;

/** Each stream asked for, by name, with all its events in revision order (none when it has none). */
export type StreamsRead = { readonly kind: 'read'; readonly streams: ReadonlyMap<string, readonly RecordedEvent[]> };
export type ReadStreamsResult = StreamsRead | StorageFailure;

export type ReadStreamsOptions = {
  /** At most this many events of each stream, from its start: a long stream is read on by readStream. */
  readonly maxCount?: number;
};

export type AppendOptions = {
  readonly expectedRevision: ExpectedRevision;
  /**
   * The chain link digest (docs/integrity.md) of the stream's event at `expectedRevision`, null when it
   * carries none, when the caller has it from a view that recorded it with that revision: a store that
   * writes the chain links to it instead of reading the event. Only with an exact expected revision;
   * other stores ignore it.
   */
  readonly previousLink?: string | null;
};

export type ReadStreamOptions = {
  /** First revision to return (inclusive); 0 when absent. */
  readonly fromRevision?: bigint;
  readonly maxCount?: number;
};

export type ReadStreamBackwardsOptions = {
  /** Last revision to return (inclusive), the first one read; the stream's last when absent. */
  readonly fromRevision?: bigint;
  readonly maxCount: number;
};

export type ReadAllOptions = {
  /** Return events after this position (exclusive): a checkpoint. From the start when absent. */
  readonly after?: bigint;
  readonly maxCount?: number;
};

/** Which events a subscription sees; both lists are prefixes, an absent list lets everything through. */
export type EventFilter = {
  readonly streamPrefixes?: readonly string[];
  readonly eventTypePrefixes?: readonly string[];
};

export type SubscriptionEnded =
  | { readonly kind: 'stopped' }
  | { readonly kind: 'handler_failed'; readonly error: unknown }
  | StorageFailure;

/**
 * What a subscription hands its handler: the events of one step in global order (possibly none), and
 * the position the log has been read up to, which is at least the last event's and may be past it when
 * events the filter dropped follow.
 */
export type SubscriptionBatch = {
  readonly events: readonly RecordedEvent[];
  readonly position: bigint;
};

/**
 * The checkpoint belongs to the caller: it passes where it got to, and its handler records
 * `batch.position` in the same commit as the work it did for the batch. The next batch is delivered
 * only after the handler's promise settles, so a crash or a failed handler leaves the caller's
 * checkpoint at the last batch whose work was committed: delivery is at least once, in global order.
 */
export type SubscribeOptions = {
  /** Deliver events after this position (exclusive): the caller's checkpoint. From the start when absent. */
  readonly after?: bigint;
  readonly filter?: EventFilter;
  /** Commits the batch's work with `batch.position`; throwing or rejecting ends the subscription. */
  readonly handle: (batch: SubscriptionBatch) => void | Promise<void>;
};

export interface Subscription {
  /** Stops after the batch in hand (if any) is handled. */
  stop(): Promise<void>;
  /** Settles when the subscription ends, on stop or on failure. */
  readonly ended: Promise<SubscriptionEnded>;
}

export interface EventStore {
  append(stream: string, events: readonly EventToAppend[], options: AppendOptions): Promise<AppendResult>;
  readStream(stream: string, options?: ReadStreamOptions): Promise<ReadResult>;
  /**
   * A stream's events from its end (or `fromRevision`) towards its start, at most `maxCount`, in
   * descending revision order: a reader that needs only the stream's latest events (a scheduler from
   * its last checkpoint) reads them without reading the whole stream. None when the stream is empty.
   */
  readStreamBackwards(stream: string, options: ReadStreamBackwardsOptions): Promise<ReadResult>;
  /**
   * Many streams in one call, each from its start: recovery reads thousands at a start, and one store
   * round trip (one query) for a batch of them costs far less than a read each. The caller bounds the
   * batch, and with `maxCount` the events of each stream.
   */
  readStreams(streams: readonly string[], options?: ReadStreamsOptions): Promise<ReadStreamsResult>;
  readAll(options?: ReadAllOptions): Promise<ReadResult>;
  /** A catch-up subscription on all streams, from the caller's checkpoint, then live. */
  subscribe(options: SubscribeOptions): Subscription;
  /** Waits for appends in flight, then releases the store's resources. */
  close(): Promise<void>;
  /**
   * True when the store numbers its events 1, 2, 3... with no gap, whatever fails (SQLite's rowids:
   * a rolled-back append takes no number), so a gap in a history read from it is events removed.
   */
  readonly gaplessPositions?: boolean;
}
