import type {
  AppendOptions,
  AppendResult,
  EventToAppend,
  ExpectedRevision,
  JsonObject,
  ReadAllOptions,
  ReadResult,
  ReadStreamBackwardsOptions,
  ReadStreamOptions,
  ReadStreamsOptions,
  ReadStreamsResult,
  RecordedEvent,
  StorageFailure,
  SubscribeOptions,
  Subscription,
  VersionConflict,
} from '../../domain/ports/event-store';
import { canonicalJson, jsonString } from '../../domain/integrity/canonical-json';
import { CHAIN_KEY, CHAIN_VERSION, dataDigest, linkDigestOf, linkDigestOfTexts, linkMetadataJson, linkOf, previousDigestText, storedLink, type ChainLink } from '../../domain/integrity/chain';
import { SEAL_STREAM } from '../../domain/integrity/seal';
import { RecentMap } from '../../domain/recent-map';
import { HistorySealer, type Sealed } from './history-sealer';
import type { OpenedEventStore, TailRead } from './store-tail';

/**
 * The event store every writer of the engine appends through: it adds to each event's metadata its
 * chain link (docs/integrity.md), computed from the head of the event's stream. Reads, subscriptions
 * and checkpoints pass through unchanged; a stream's read also tells the head its latest event read.
 *
 * A link names the revision its event lands at, so every append goes to the store with an exact
 * expected revision: `any` and `stream_exists` are resolved against the stream's head first (and
 * retried when another writer moved it). Heads are cached per stream: a successful append and a read of
 * the stream update the cache, a conflict or a storage failure forgets the stream, and a miss reads the
 * one event at the expected revision.
 *
 * Every `sealEvery` events, and when the store is sealed or closed, a seal over the global order is
 * written in the background (history-sealer.ts); docs/decisions.md says why not more often.
 */

/** Events between two seals while the engine runs; see docs/decisions.md. */
export const SEAL_EVERY = 1000;

/** The last event of a stream as the store reads it: its revision, and its link digest (null when it carries none). */
type StreamEnd = { readonly revision: bigint; readonly digest: string | null };

/**
 * A cached head: the revision and link digest of the last event this process appended to the stream,
 * and the stream's name as JSON text, which every link digest of the stream contains. Updated in place.
 */
type Head = { revision: number; digest: string; readonly streamText: string };

/**
 * Streams whose heads are kept; beyond it the least recently appended to are forgotten (a miss only
 * costs one read). A RecentMap keeps at least the last half of it: a restart settling 10,000
 * interrupted invocations appends to 20,000 streams (each invocation's and its scheduler's) it has
 * just read, and each head forgotten meanwhile costs a read (docs/decisions.md).
 */
const MAX_CACHED_HEADS = 50_000;
/** Rounds of resolving `any` or `stream_exists` while other writers keep moving the stream. */
const MAX_RESOLVE_ROUNDS = 8;

type Resolved = { readonly kind: 'resolved'; readonly expected: bigint | 'no_stream'; readonly previous: string | null };

/**
 * An event with its link as its only metadata, and that metadata's JSON text written here: every store
 * writes `metadataJson` when it is there, so the metadata object is built only for a reader that asks.
 */
class LinkedEvent implements EventToAppend {
  private built: JsonObject | undefined;

  constructor(
    readonly id: string,
    readonly type: string,
    readonly data: EventToAppend['data'],
    readonly dataJson: string,
    readonly metadataJson: string,
    private readonly link: ChainLink,
  ) {}

  get metadata(): JsonObject {
    if (this.built === undefined) this.built = { [CHAIN_KEY]: storedLink(this.link) };
    return this.built;
  }
}

/** The event with its link as its only metadata. Data the caller did not serialise goes to the store as the canonical text the link was digested over. */
const linkedOnly = (event: EventToAppend, link: ChainLink, canonicalData: string): EventToAppend =>
  new LinkedEvent(event.id, event.type, event.data, event.dataJson ?? canonicalData, linkMetadataJson(link), link);

/** The event with its link beside the metadata it came with. */
const linkedBeside = (event: EventToAppend, link: ChainLink, canonicalData: string): EventToAppend => {
  const metadata: JsonObject = { ...event.metadata, [CHAIN_KEY]: storedLink(link) };
  return { id: event.id, type: event.type, data: event.data, metadata, dataJson: event.dataJson ?? canonicalData };
};

/** The canonical JSON of the event's data: the caller's text when it says it is canonical. */
const canonicalDataOf = (event: EventToAppend): string =>
  event.dataJsonCanonical === true && event.dataJson !== undefined ? event.dataJson : canonicalJson(event.data);

export class ChainedEventStore implements OpenedEventStore {
  private readonly heads = new RecentMap<string, Head>(MAX_CACHED_HEADS);
  private readonly sealer: HistorySealer;
  /** Events appended since the last seal began. */
  private unsealed = 0;
  /** The seal being written, if any: seals are written one at a time. */
  private sealing: Promise<Sealed> | undefined;

  /**
   * `densePositions`: the store gives an append's events consecutive positions (SQLite, PostgreSQL,
   * memory), so the sealer can place this process's digests without reading them back.
   */
  constructor(
    private readonly inner: OpenedEventStore,
    private readonly sealEvery: number = SEAL_EVERY,
    private readonly densePositions = false,
  ) {
    this.sealer = new HistorySealer(this);
  }

  /** Seals the history appended so far (after the seal in hand, if one is being written). */
  async seal(): Promise<Sealed> {
    if (this.sealing !== undefined) await this.sealing;
    if (this.unsealed === 0) return { kind: 'nothing_new' };
    return this.startSeal(true);
  }

  append(stream: string, events: readonly EventToAppend[], options: AppendOptions): Promise<AppendResult> {
    const asked = options.expectedRevision;
    // The engine's appends: at the revision its aggregate read, whose head this store wrote last.
    if (typeof asked === 'bigint' || typeof asked === 'number') {
      const revision = Number(asked);
      const cached = this.heads.get(stream);
      if (cached !== undefined && cached.revision === revision && Number.isSafeInteger(revision)) {
        // The cached digest is one this store wrote (base64url): its JSON text needs no escape check.
        return this.appendLinked(stream, events, BigInt(asked), cached.digest, `"${cached.digest}"`, cached.streamText);
      }
      // A link the caller's view recorded with this revision: appended after it without reading the event.
      if (options.previousLink !== undefined) return this.appendLinked(stream, events, BigInt(asked), options.previousLink);
    } else if (asked === 'no_stream') return this.appendLinked(stream, events, 'no_stream', null);
    return this.appendResolving(stream, events, asked);
  }

  private async appendResolving(stream: string, events: readonly EventToAppend[], asked: ExpectedRevision): Promise<AppendResult> {
    const exact = asked !== 'any' && asked !== 'stream_exists';
    for (let round = 0; ; round += 1) {
      const resolved = await this.resolve(stream, asked, events);
      if (resolved.kind !== 'resolved') return resolved;
      const result = await this.appendLinked(stream, events, resolved.expected, resolved.previous);
      // A conflict on a revision this store chose (not the caller) is another writer's append: look again.
      if (result.kind === 'version_conflict' && !exact && round + 1 < MAX_RESOLVE_ROUNDS) continue;
      if (result.kind === 'version_conflict' && !exact) return { ...result, expected: asked };
      return result;
    }
  }

  readStream(stream: string, options?: ReadStreamOptions): Promise<ReadResult> {
    return this.inner.readStream(stream, options).then((read) => {
      if (read.kind === 'read') this.learn(stream, read.events[read.events.length - 1]);
      return read;
    });
  }

  readStreamBackwards(stream: string, options: ReadStreamBackwardsOptions): Promise<ReadResult> {
    return this.inner.readStreamBackwards(stream, options).then((read) => {
      if (read.kind === 'read') this.learn(stream, read.events[0]);
      return read;
    });
  }

  readStreams(streams: readonly string[], options?: ReadStreamsOptions): Promise<ReadStreamsResult> {
    return this.inner.readStreams(streams, options).then((read) => {
      if (read.kind === 'read') for (const [stream, events] of read.streams) this.learn(stream, events[events.length - 1]);
      return read;
    });
  }

  readAll(options?: ReadAllOptions): Promise<ReadResult> {
    return this.inner.readAll(options);
  }

  subscribe(options: SubscribeOptions): Subscription {
    return this.inner.subscribe(options);
  }

  readLast(): Promise<TailRead> {
    return this.inner.readLast();
  }

  get gaplessPositions(): boolean {
    return this.inner.gaplessPositions === true;
  }

  async close(): Promise<void> {
    try {
      await this.seal();
    } finally {
      await this.inner.close();
    }
  }

  /** `toEnd`: through the store's last event (a seal asked for, or on close), not only through this process's own run. */
  private startSeal(toEnd: boolean): Promise<Sealed> {
    this.unsealed = 0;
    const sealing = this.sealer.seal(toEnd).catch((error: unknown): Sealed => ({ kind: 'storage_failure', reason: String(error) }));
    this.sealing = sealing;
    void sealing.then((sealed) => {
      if (this.sealing === sealing) this.sealing = undefined;
      // What a failed seal would have covered is covered by the next one.
      if (sealed.kind === 'storage_failure') this.unsealed = Math.max(this.unsealed, 1);
    });
    return sealing;
  }

  private noteAppended(stream: string, count: number): void {
    if (stream === SEAL_STREAM) return;
    this.unsealed += count;
    if (this.unsealed >= this.sealEvery && this.sealing === undefined) void this.startSeal(false);
  }

  /**
   * Links the events in one pass (data digest, then link digest, event by event) and appends them at
   * `expected`. Not async: the engine's hot path pays for one promise of its own, the store's `then`.
   */
  private appendLinked(
    stream: string,
    events: readonly EventToAppend[],
    expected: bigint | 'no_stream',
    previousDigest: string | null,
    firstPreviousText: string = previousDigestText(previousDigest),
    streamText: string = jsonString(stream),
  ): Promise<AppendResult> {
    const first = expected === 'no_stream' ? 0 : Number(expected) + 1;
    const count = events.length;
    const linked: EventToAppend[] = new Array(count);
    const digests: string[] = new Array(count);
    let previous = previousDigest;
    try {
      let previousText = firstPreviousText;
      for (let index = 0; index < count; index += 1) {
        const event = events[index]!;
        const canonicalData = canonicalDataOf(event);
        // Lowercase hex, the caller's too (EventToAppend.dataDigest): its JSON text needs no escape.
        const dataText = `"${event.dataDigest ?? dataDigest(event.type, canonicalData)}"`;
        const digest = linkDigestOfTexts(previousText, streamText, first + index, dataText);
        const link: ChainLink = { v: CHAIN_VERSION, digest, previous };
        linked[index] = event.metadata === undefined ? linkedOnly(event, link, canonicalData) : linkedBeside(event, link, canonicalData);
        digests[index] = digest;
        previous = digest;
        previousText = `"${digest}"`;
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.inner
      .append(stream, linked, { expectedRevision: expected })
      .then((result) => this.settled(stream, result, first + count - 1, digests, streamText));
  }

  /** Keeps the stream's new head after an append, or forgets the stream after a conflict or a failure. */
  private settled(stream: string, result: AppendResult, lastRevision: number, digests: readonly string[], streamText: string): AppendResult {
    if (result.kind !== 'appended') {
      this.heads.delete(stream);
      return result;
    }
    if (digests.length > 0) {
      this.remember(stream, lastRevision, digests[digests.length - 1]!, streamText);
      if (this.densePositions) this.sealer.noteAppended(result.lastPosition, digests);
      this.noteAppended(stream, digests.length);
    }
    return result;
  }

  /** The exact revision to append after and the digest to link to, from the cache or the store. */
  private async resolve(stream: string, asked: ExpectedRevision, events: readonly EventToAppend[]): Promise<Resolved | AppendResult> {
    if (asked === 'no_stream') return { kind: 'resolved', expected: 'no_stream', previous: null };
    if (asked !== 'any' && asked !== 'stream_exists') {
      const revision = BigInt(asked);
      const cached = this.heads.get(stream);
      if (cached !== undefined && BigInt(cached.revision) === revision) return { kind: 'resolved', expected: revision, previous: cached.digest };
      const read = await this.inner.readStream(stream, { fromRevision: revision, maxCount: 1 });
      if (read.kind === 'storage_failure') return read;
      const event = read.events[0];
      // No event there: the store will answer with the conflict; link to nothing meanwhile.
      const previous = event !== undefined && event.revision === revision ? linkDigestOf(event) : null;
      return { kind: 'resolved', expected: revision, previous };
    }
    const head = await this.readHead(stream);
    if (head.kind === 'storage_failure') return head;
    if (head.head === undefined) {
      return asked === 'any' ? { kind: 'resolved', expected: 'no_stream', previous: null } : { kind: 'version_conflict', stream, expected: asked, actual: 'no_stream' };
    }
    const done = await this.alreadyAtEnd(stream, events, head.head.revision);
    if (done !== undefined) return done;
    return { kind: 'resolved', expected: head.head.revision, previous: head.head.digest };
  }

  /**
   * The earlier result when the stream ends with these ids, in order: an `any` or `stream_exists` append
   * retried after it succeeded writes nothing again, as every store's own check would decide.
   */
  private async alreadyAtEnd(stream: string, events: readonly EventToAppend[], last: bigint): Promise<AppendResult | undefined> {
    const start = last - BigInt(events.length) + 1n;
    if (events.length === 0 || start < 0n) return undefined;
    const read = await this.inner.readStream(stream, { fromRevision: start, maxCount: events.length });
    if (read.kind === 'storage_failure') return read;
    if (read.events.length !== events.length || read.events.some((recorded, index) => recorded.id !== events[index]!.id)) return undefined;
    const end = read.events[read.events.length - 1]!;
    return { kind: 'appended', nextExpectedRevision: end.revision, lastPosition: end.position };
  }

  /** The stream's last event, read through to its end (only `any` and `stream_exists` appends need it). */
  private async readHead(stream: string): Promise<{ readonly kind: 'head'; readonly head: StreamEnd | undefined } | StorageFailure> {
    let head: StreamEnd | undefined;
    for (;;) {
      const read = await this.inner.readStream(stream, { fromRevision: head === undefined ? 0n : head.revision + 1n, maxCount: 1000 });
      if (read.kind === 'storage_failure') return read;
      const last = read.events[read.events.length - 1];
      if (last === undefined) return { kind: 'head', head };
      head = { revision: last.revision, digest: linkDigestOf(last) };
      if (read.events.length < 1000) return { kind: 'head', head };
    }
  }

  /**
   * Keeps the latest event read of a stream as its head: the link of the event at a revision never
   * changes, so an append expecting that revision links to it without reading it again (a reader loads
   * an aggregate's stream, then appends to it; after a restart nothing is cached). When the stream has
   * moved on, the append meets the store's conflict as it would have anyway.
   */
  private learn(stream: string, event: RecordedEvent | undefined): void {
    if (event === undefined) return;
    let digest: string | undefined;
    try {
      digest = linkOf(event.metadata)?.digest;
    } catch {
      return; // metadata that cannot be read: the append reads the event and meets the same
    }
    const revision = Number(event.revision);
    if (digest !== undefined && Number.isSafeInteger(revision)) this.remember(stream, revision, digest, jsonString(stream));
  }

  private remember(stream: string, revision: number, digest: string, streamText: string): void {
    const cached = this.heads.get(stream);
    if (cached === undefined) {
      this.heads.set(stream, { revision, digest, streamText });
      return;
    }
    // Appends that settle out of order, reads of earlier events: a later revision is never replaced by an earlier one.
    if (cached.revision < revision) {
      cached.revision = revision;
      cached.digest = digest;
    }
  }
}
