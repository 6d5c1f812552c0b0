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
   * `JSON.stringify(data)`, when the caller has serialised it already (to derive the event's id, say):
   * a store that writes JSON text writes this instead of serialising `data` again.
   */
  readonly dataJson?: string;
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

export type AppendOptions = { readonly expectedRevision: ExpectedRevision };

export type ReadStreamOptions = {
  /** First revision to return (inclusive); 0 when absent. */
  readonly fromRevision?: bigint;
  readonly maxCount?: number;
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

export type CheckpointRead = { readonly kind: 'checkpoint'; readonly position: bigint | undefined } | StorageFailure;
export type CheckpointCommitted<T> = { readonly kind: 'committed'; readonly value: T } | StorageFailure;

/**
 * Where subscribers keep how far they got. `commit` runs `apply` and writes the checkpoint as one unit:
 * on SQLite in one transaction of the store's database (so a projection writing its read model to the
 * same database gets both or neither); in memory trivially; on EventStoreDB after `apply` (at least once).
 * `apply` is synchronous so that it can run inside an SQLite transaction. If it throws, no checkpoint is
 * written and the error propagates.
 */
export interface CheckpointStore {
  read(subscriberId: string): Promise<CheckpointRead>;
  commit<T>(subscriberId: string, position: bigint, apply: () => T): Promise<CheckpointCommitted<T>>;
}

export type SubscriptionEnded =
  | { readonly kind: 'stopped' }
  | { readonly kind: 'handler_failed'; readonly error: unknown }
  | StorageFailure;

export type SubscribeOptions = {
  /** Names the checkpoint: a subscription with the same id resumes where the last one stopped. */
  readonly subscriberId: string;
  readonly filter?: EventFilter;
  /** Runs inside the checkpoint commit for each event, in global order. */
  readonly handle: (event: RecordedEvent) => void;
};

export interface Subscription {
  /** Stops after the event in hand (if any) is handled and checkpointed. */
  stop(): Promise<void>;
  /** Settles when the subscription ends, on stop or on failure. */
  readonly ended: Promise<SubscriptionEnded>;
}

export interface EventStore {
  append(stream: string, events: readonly EventToAppend[], options: AppendOptions): Promise<AppendResult>;
  readStream(stream: string, options?: ReadStreamOptions): Promise<ReadResult>;
  readAll(options?: ReadAllOptions): Promise<ReadResult>;
  /** A catch-up subscription on all streams, resuming after its stored checkpoint, then live. */
  subscribe(options: SubscribeOptions): Subscription;
  readonly checkpoints: CheckpointStore;
  /** Waits for appends in flight, then releases the store's resources. */
  close(): Promise<void>;
}
