import type { EventStore, EventToAppend, JsonValue, RecordedEvent } from '../ports/event-store';
import { ForeignEvent } from '../ports/unreadable-event';
import { canonicalJson } from '../integrity/canonical-json';
import { dataDigest } from '../integrity/chain';

/**
 * The generic command handler: one aggregate stream kept folded in memory. A command is decided
 * against the held state, appended with the expected revision (one durable write), and folded in.
 * A version conflict re-reads the stream from the held revision, re-folds and decides again; a
 * storage failure becomes a value the caller turns into its own refusal. The decision's answer is
 * handed back as the decider gave it: the handler only appends. Commands on one stream run one after
 * another; different streams run concurrently.
 */

/** A decision: the events to append (none when it refused, or had nothing to record) and its answer. */
export interface Decided<V, A> {
  readonly events: readonly V[];
  readonly answer: A;
}

export interface StreamDecider<S, C, V, A> {
  readonly initialState: () => S;
  readonly evolve: (state: S, event: V) => S;
  readonly decide: (command: C, state: S) => Decided<V, A>;
}

export interface EventCodec<V> {
  readonly typeOf: (event: V) => string;
  readonly toData: (event: V) => JsonValue;
  /** The event a recorded one stands for (by its type and data), or a sentence saying why it is not one. */
  readonly fromRecorded: (recorded: Pick<RecordedEvent, 'type' | 'data'>) => V | string;
}

/**
 * What every aggregate of one kind shares: its decider, its codec, and how its stream is named from
 * its key. An aggregate holds only its key (a string the caller holds anyway), not its stream name.
 */
export interface AggregateKind<S, C, V, A> {
  readonly streamOf: (key: string) => string;
  readonly decider: StreamDecider<S, C, V, A>;
  readonly codec: EventCodec<V>;
  /**
   * For a kind whose streams record their whole state now and then: the recorded type of such a
   * checkpoint event. `loadFromCheckpoint` starts from the latest one instead of the stream's start
   * (the decider's `evolve` of a checkpoint gives the state it records).
   */
  readonly checkpointType?: string;
}

/**
 * A command's end: decided (its events, if any, are durable) or unavailable (the store did not retain
 * them). Both carry the decision's answer; when unavailable, the answer of the decision whose append
 * failed, which did not happen.
 */
export type Handled<S, V, A> =
  | { readonly kind: 'decided'; readonly events: readonly V[]; readonly answer: A; readonly state: S }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly answer: A; readonly state: S };

/** `foreign`: the stream holds an event the aggregate cannot fold (the store was changed), for a caller that must stop. */
type Loaded = { readonly kind: 'loaded' } | { readonly kind: 'unavailable'; readonly reason: string; readonly foreign?: ForeignEvent };

/**
 * Deterministic event ids: from the stream, the revision and the event's content. A retried append of
 * the same decision carries the same ids (the store treats it as done); another writer's different
 * decision at the same revision has other ids, so it is a version conflict, never mistaken for ours.
 */
export const eventId = (stream: string, revision: bigint | number, type: string, data: JsonValue): string =>
  eventIdOfDigest(stream, revision, dataDigest(type, canonicalJson(data)));

/** eventId from the event's data digest (docs/integrity.md), for a caller that also hands it to the chain. */
const eventIdOfDigest = (stream: string, revision: bigint | number, digest: string): string => `${stream}@${revision}:${digest.slice(0, 16)}`;

const MAX_CONFLICT_RETRIES = 5;

/**
 * Events read back per store call while looking for a stream's latest checkpoint: a scheduler records
 * one every 64 attempts (128 events and a few), so one call nearly always reaches it.
 */
const CHECKPOINT_SEARCH_PAGE = 160;

export class StreamAggregate<S, C, V, A> {
  private held: S;
  /**
   * Revision of the last event folded in; -1 when the stream is empty. A number, not a bigint: a
   * small integer is stored in the object itself, a bigint is one more heap object per aggregate.
   */
  private revision = -1;
  /** The last command queued while one runs; undefined when idle, so an idle aggregate holds no promise. */
  private tail: Promise<unknown> | undefined = undefined;
  /** The link digest of the event at the restored revision, for the next append (AppendOptions.previousLink). */
  private restoredLink: string | null | undefined = undefined;

  constructor(
    readonly key: string,
    private readonly store: EventStore,
    private readonly kind: AggregateKind<S, C, V, A>,
  ) {
    this.held = kind.decider.initialState();
  }

  get stream(): string {
    return this.kind.streamOf(this.key);
  }

  get state(): S {
    return this.held;
  }

  /**
   * Starts from a state folded elsewhere (a snapshot) up to `revision`, instead of from the stream's
   * beginning; only before anything was folded. A stale snapshot is safe for writes: the next append
   * expects a revision the stream has passed, so it re-reads from there and decides again. `link`: the
   * link digest of the event at `revision`, when the snapshot recorded it, handed to the store with the
   * next append.
   */
  restore(state: S, revision: number, link?: string | null): boolean {
    if (this.revision !== -1 || this.tail !== undefined) return false;
    this.held = state;
    this.revision = revision;
    this.restoredLink = link;
    return true;
  }

  /** Reads and folds the stream from where the held state stopped. */
  async load(): Promise<Loaded> {
    const read = await this.store.readStream(this.stream, { fromRevision: BigInt(this.revision + 1) });
    if (read.kind === 'storage_failure') return { kind: 'unavailable', reason: read.reason };
    return this.fold(read.events);
  }

  /**
   * Reads the stream back from its end, CHECKPOINT_SEARCH_PAGE events at a time, to its latest
   * checkpoint event (or to the held revision, or the stream's start), then folds forward from there:
   * a long stream costs what its events since the checkpoint do. A kind without checkpoints loads.
   */
  async loadFromCheckpoint(): Promise<Loaded> {
    const checkpointType = this.kind.checkpointType;
    if (checkpointType === undefined) return this.load();
    const since: RecordedEvent[] = [];
    let from: bigint | undefined;
    for (;;) {
      const read = await this.store.readStreamBackwards(this.stream, from === undefined ? { maxCount: CHECKPOINT_SEARCH_PAGE } : { fromRevision: from, maxCount: CHECKPOINT_SEARCH_PAGE });
      if (read.kind === 'storage_failure') return { kind: 'unavailable', reason: read.reason };
      for (const recorded of read.events) {
        const revision = Number(recorded.revision);
        // Folded already, or the checkpoint: fold forward from here (the checkpoint's evolve is its state).
        if (revision <= this.revision) return this.fold(since.reverse());
        since.push(recorded);
        if (recorded.type === checkpointType) {
          const held = this.revision;
          this.revision = revision - 1;
          const folded = this.fold(since.reverse());
          // A checkpoint that does not decode leaves the held state as it was, with its own revision.
          if (folded.kind === 'unavailable' && this.revision === revision - 1) this.revision = held;
          return folded;
        }
      }
      const last = read.events[read.events.length - 1];
      if (read.events.length < CHECKPOINT_SEARCH_PAGE || last === undefined || last.revision === 0n) return this.fold(since.reverse());
      from = last.revision - 1n;
    }
  }

  /**
   * Folds in the stream's events read elsewhere (many streams read in one store call), skipping those
   * already folded. As after `load`, an append expects the revision reached, so events appended since
   * the read make it re-read from there and decide again.
   */
  fold(events: readonly RecordedEvent[]): Loaded {
    const stream = this.stream;
    const { decider, codec } = this.kind;
    let state = this.held;
    for (const recorded of events) {
      if (Number(recorded.revision) <= this.revision) continue;
      const event = codec.fromRecorded(recorded);
      let refusal = typeof event === 'string' ? event : undefined;
      if (refusal === undefined) {
        try {
          state = decider.evolve(state, event as V);
        } catch (error) {
          refusal = `it cannot be folded: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
      if (refusal !== undefined) {
        this.held = state;
        const foreign = new ForeignEvent(recorded.position, stream, recorded.revision, refusal);
        return { kind: 'unavailable', reason: `event ${recorded.revision} of stream '${stream}': ${refusal}`, foreign };
      }
      this.revision = Number(recorded.revision);
    }
    this.held = state;
    return { kind: 'loaded' };
  }

  /** Runs the command after every command handed in before it has finished. */
  handle(command: C): Promise<Handled<S, V, A>> {
    const previous = this.tail;
    const run = previous === undefined ? this.execute(command) : previous.then(() => this.execute(command));
    const settled: Promise<unknown> = run.then(
      () => this.release(settled),
      () => this.release(settled),
    );
    this.tail = settled;
    return run;
  }

  private release(settled: Promise<unknown>): void {
    if (this.tail === settled) this.tail = undefined;
  }

  private async execute(command: C): Promise<Handled<S, V, A>> {
    const { decider, codec } = this.kind;
    const stream = this.stream;
    for (let attempt = 0; ; attempt++) {
      const { events, answer } = decider.decide(command, this.held);
      if (events.length === 0) return { kind: 'decided', events, answer, state: this.held };
      const toAppend: EventToAppend[] = [];
      for (let i = 0; i < events.length; i++) {
        const event = events[i] as V;
        const type = codec.typeOf(event);
        const data = codec.toData(event);
        // Serialised once, canonically, and digested once: the digest names the event and is what the
        // chain links; the text is what the store writes.
        const dataJson = canonicalJson(data);
        const digest = dataDigest(type, dataJson);
        toAppend.push({ id: eventIdOfDigest(stream, this.revision + 1 + i, digest), type, data, dataJson, dataJsonCanonical: true, dataDigest: digest });
      }
      const expectedRevision = this.revision < 0 ? 'no_stream' : this.revision;
      // The link a view recorded with the restored revision serves the first append only.
      const previousLink = this.restoredLink;
      this.restoredLink = undefined;
      const appended = await this.store.append(stream, toAppend, previousLink === undefined || expectedRevision === 'no_stream' ? { expectedRevision } : { expectedRevision, previousLink });
      if (appended.kind === 'appended') {
        let state = this.held;
        for (const event of events) state = decider.evolve(state, event);
        this.held = state;
        this.revision = Number(appended.nextExpectedRevision);
        return { kind: 'decided', events, answer, state };
      }
      if (appended.kind === 'storage_failure') return { kind: 'unavailable', reason: appended.reason, answer, state: this.held };
      if (attempt >= MAX_CONFLICT_RETRIES) {
        return { kind: 'unavailable', reason: `stream '${stream}' kept changing under ${attempt + 1} appends`, answer, state: this.held };
      }
      const reloaded = await this.load();
      if (reloaded.kind === 'unavailable') return { kind: 'unavailable', reason: reloaded.reason, answer, state: this.held };
    }
  }
}
