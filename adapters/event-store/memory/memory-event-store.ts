import { AppendedSignal, startCatchUpSubscription } from '../catch-up-subscription';
import { reappendStartRevision, satisfiesExpectedRevision } from '../expected-revision';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  EventToAppend,
  JsonObject,
  JsonValue,
  ReadAllOptions,
  ReadResult,
  ReadStreamBackwardsOptions,
  ReadStreamOptions,
  ReadStreamsOptions,
  ReadStreamsResult,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../../../domain/ports/event-store';
import type { TailRead } from '../store-tail';
import { dataTextOf, metadataTextOf } from '../stored-text';

type MemoryStream = { readonly events: RecordedEvent[] };

/** The earlier append's result when the events from `start` on carry these ids, in order. */
const alreadyAppended = (existing: MemoryStream, events: readonly EventToAppend[], start: number): AppendResult | undefined => {
  for (let index = 0; index < events.length; index += 1) {
    if (existing.events[start + index]?.id !== events[index]!.id) return undefined;
  }
  const last = existing.events[start + events.length - 1]!;
  return { kind: 'appended', nextExpectedRevision: last.revision, lastPosition: last.position };
};

/** An event store in process memory, with the same rules as the durable ones; for tests. */
export class MemoryEventStore implements EventStore {
  private readonly log: RecordedEvent[] = [];
  private readonly streams = new Map<string, MemoryStream>();
  private readonly appended = new AppendedSignal();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async append(stream: string, events: readonly EventToAppend[], options: AppendOptions): Promise<AppendResult> {
    const existing = this.streams.get(stream);
    const current = existing === undefined || existing.events.length === 0 ? 'no_stream' : BigInt(existing.events.length - 1);
    const reappendStart = reappendStartRevision(options.expectedRevision, current, events.length);
    if (existing !== undefined && reappendStart !== undefined) {
      const already = alreadyAppended(existing, events, Number(reappendStart));
      if (already !== undefined) return already;
    }
    if (!satisfiesExpectedRevision(options.expectedRevision, current)) {
      return { kind: 'version_conflict', stream, expected: options.expectedRevision, actual: current };
    }
    const target = existing ?? { events: [] };
    if (existing === undefined) this.streams.set(stream, target);
    const recordedAt = this.now();
    for (const event of events) {
      const revision = target.events.length;
      const metadata = metadataTextOf(event);
      const recorded: RecordedEvent = {
        id: event.id,
        type: event.type,
        data: JSON.parse(dataTextOf(event)) as JsonValue,
        metadata: metadata === null ? undefined : (JSON.parse(metadata) as JsonObject),
        stream,
        revision: BigInt(revision),
        position: BigInt(this.log.length + 1),
        recordedAt,
      };
      target.events.push(recorded);
      this.log.push(recorded);
    }
    const last = target.events[target.events.length - 1];
    queueMicrotask(this.appended.notify);
    return {
      kind: 'appended',
      nextExpectedRevision: last === undefined ? -1n : last.revision,
      lastPosition: last === undefined ? 0n : last.position,
    };
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<ReadResult> {
    const events = this.streams.get(stream)?.events ?? [];
    const from = Number(options?.fromRevision ?? 0n);
    const to = options?.maxCount === undefined ? events.length : from + options.maxCount;
    return { kind: 'read', events: events.slice(from, to) };
  }

  async readStreamBackwards(stream: string, options: ReadStreamBackwardsOptions): Promise<ReadResult> {
    const events = this.streams.get(stream)?.events ?? [];
    // Revisions are the indexes: the last one read is `fromRevision`, or the stream's last.
    const last = options.fromRevision === undefined ? events.length - 1 : Math.min(Number(options.fromRevision), events.length - 1);
    const first = Math.max(0, last - options.maxCount + 1);
    return { kind: 'read', events: last < 0 ? [] : events.slice(first, last + 1).reverse() };
  }

  async readStreams(streams: readonly string[], options?: ReadStreamsOptions): Promise<ReadStreamsResult> {
    const read = new Map<string, readonly RecordedEvent[]>();
    for (const stream of streams) read.set(stream, this.streams.get(stream)?.events.slice(0, options?.maxCount) ?? []);
    return { kind: 'read', streams: read };
  }

  async readAll(options?: ReadAllOptions): Promise<ReadResult> {
    const from = Number(options?.after ?? 0n);
    const to = options?.maxCount === undefined ? this.log.length : from + options.maxCount;
    return { kind: 'read', events: this.log.slice(from, to) };
  }

  async readLast(): Promise<TailRead> {
    const last = this.log[this.log.length - 1];
    if (last === undefined) return { kind: 'tail', last: undefined };
    return { kind: 'tail', last: { stream: last.stream, type: last.type, position: last.position, data: () => last.data } };
  }

  subscribe(options: SubscribeOptions): Subscription {
    return startCatchUpSubscription(
      {
        readAll: (readOptions) => this.readAll(readOptions),
        onAppended: this.appended.onAppended,
      },
      options,
    );
  }

  async close(): Promise<void> {
    this.appended.clear();
  }
}
