import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  StreamNotFoundError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamRecordedEvent,
  type Filter,
  type Position,
  type JSONType,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import type { AppendOptions, AppendResult, EventFilter, EventStore, EventToAppend, JsonObject, JsonValue, ReadAllOptions, ReadResult, ReadStreamBackwardsOptions, ReadStreamOptions, ReadStreamsOptions, ReadStreamsResult, RecordedEvent, SubscribeOptions, Subscription, SubscriptionEnded } from '../../../domain/ports/event-store';
import { describeError, storageFailure } from '../../../domain/ports/storage-failure';
import { passesFilter } from '../event-filter';
import { fromEsdbError, fromUnsuccessfulAppend } from './errors';
import { toEsdbEventId } from './event-ids';
import { toEsdbExpectedRevision } from './expected-revision';
import type { TailRead } from '../store-tail';

/** What the store writes as EventStoreDB metadata: the port's id and metadata. */
type MetadataEnvelope = { readonly event_id: string; readonly metadata: JsonObject | null };

/** Where earlier versions kept subscription checkpoints; such streams may still be in a database. */
const LEGACY_CHECKPOINT_STREAM_PREFIX = 'raes-checkpoint-';

const isEngineStream = (stream: string): boolean =>
  !stream.startsWith('$') && !stream.startsWith(LEGACY_CHECKPOINT_STREAM_PREFIX);

const toRecordedEvent = (event: EsdbRecordedEvent, position: bigint): RecordedEvent => {
  const envelope = event.metadata as Partial<MetadataEnvelope> | undefined;
  return {
    id: typeof envelope?.event_id === 'string' ? envelope.event_id : event.id,
    type: event.type,
    data: event.data as JsonValue,
    metadata: envelope?.metadata ?? undefined,
    stream: event.streamId,
    revision: event.revision,
    position,
    recordedAt: event.created,
  };
};

/**
 * The port's position is the event's commit position in `$all`. Resuming after position p reads from
 * {commit: p, prepare: p} and drops what is at or before p.
 */
const positionOf = (event: AllStreamRecordedEvent): bigint => event.position.commit;

/** Stream reads carry the event's $all position too, though the client's type leaves it out. */
const streamEventPosition = (event: EsdbRecordedEvent, commitPosition: bigint | undefined): bigint =>
  (event as { readonly position?: Position }).position?.commit ?? commitPosition ?? 0n;

const serverFilter = (filter: EventFilter | undefined): Filter => {
  if (filter?.streamPrefixes !== undefined) return streamNameFilter({ prefixes: [...filter.streamPrefixes] });
  if (filter?.eventTypePrefixes !== undefined) return eventTypeFilter({ prefixes: [...filter.eventTypePrefixes] });
  return excludeSystemEvents();
};

/** EventStoreDB / KurrentDB, for a cluster when one machine is not enough. */
export class EventStoreDbEventStore implements EventStore {
  constructor(private readonly client: EventStoreDBClient) {}

  async append(stream: string, events: readonly EventToAppend[], options: AppendOptions): Promise<AppendResult> {
    const toWrite = events.map((event) => {
      const envelope: MetadataEnvelope = { event_id: event.id, metadata: event.metadata ?? null };
      return jsonEvent({
        id: toEsdbEventId(event.id),
        type: event.type,
        data: event.data as JSONType,
        metadata: envelope,
      });
    });
    try {
      const result = await this.client.appendToStream(stream, toWrite, {
        expectedRevision: toEsdbExpectedRevision(options.expectedRevision),
      });
      if (!result.success) return fromUnsuccessfulAppend(result, stream, options.expectedRevision);
      return {
        kind: 'appended',
        nextExpectedRevision: result.nextExpectedRevision,
        lastPosition: result.position?.commit ?? 0n,
      };
    } catch (error) {
      return fromEsdbError(error, stream, options.expectedRevision, `appending to '${stream}'`);
    }
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<ReadResult> {
    const events: RecordedEvent[] = [];
    try {
      const reading = this.client.readStream(stream, {
        direction: FORWARDS,
        fromRevision: options?.fromRevision ?? START,
        ...(options?.maxCount === undefined ? {} : { maxCount: options.maxCount }),
      });
      for await (const resolved of reading) {
        const event = resolved.event;
        if (event !== undefined) events.push(toRecordedEvent(event, streamEventPosition(event, resolved.commitPosition)));
      }
      return { kind: 'read', events };
    } catch (error) {
      if (error instanceof StreamNotFoundError) return { kind: 'read', events: [] };
      return storageFailure(`EventStoreDB: reading stream '${stream}' failed: ${describeError(error)}`);
    }
  }

  /**
   * The server reads the revisions from `fromRevision - maxCount + 1` to `fromRevision` whatever the
   * stream's end: from past its end it returns only the part of that window the stream reaches (or
   * nothing), where the port asks for the stream's last events. Such a short answer is read again from
   * the stream's last event; a stream that ends at or beyond `fromRevision` is read in one call.
   */
  async readStreamBackwards(stream: string, options: ReadStreamBackwardsOptions): Promise<ReadResult> {
    const from = options.fromRevision;
    // The client refuses a negative revision; no revision is below 0, and no count below 1 reads anything.
    if (options.maxCount < 1 || (from !== undefined && from < 0n)) return { kind: 'read', events: [] };
    try {
      const events = await this.readBackwardsFrom(stream, from ?? END, options.maxCount);
      if (from === undefined || events.length === options.maxCount) return { kind: 'read', events };
      const top = events[0];
      const bottom = events[events.length - 1];
      // The stream reaches fromRevision, or the read went down to revision 0: nothing was missed.
      if (top !== undefined && (top.revision === from || bottom!.revision === 0n)) return { kind: 'read', events };
      if (top !== undefined) return { kind: 'read', events: await this.readBackwardsFrom(stream, top.revision, options.maxCount) };
      // Nothing in the window: the stream is missing or ends below it.
      const fromEnd = await this.readBackwardsFrom(stream, END, options.maxCount);
      // An append in between took the stream to fromRevision: the window is full now.
      if (fromEnd[0] !== undefined && fromEnd[0].revision > from) {
        return { kind: 'read', events: await this.readBackwardsFrom(stream, from, options.maxCount) };
      }
      return { kind: 'read', events: fromEnd };
    } catch (error) {
      return storageFailure(`EventStoreDB: reading stream '${stream}' backwards failed: ${describeError(error)}`);
    }
  }

  /** At most `maxCount` events of the stream, down from `fromRevision`; none when the stream is missing. */
  private async readBackwardsFrom(stream: string, fromRevision: bigint | typeof END, maxCount: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      const reading = this.client.readStream(stream, { direction: BACKWARDS, fromRevision, maxCount });
      for await (const resolved of reading) {
        const event = resolved.event;
        if (event !== undefined) events.push(toRecordedEvent(event, streamEventPosition(event, resolved.commitPosition)));
      }
      return events;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }

  /** EventStoreDB reads one stream per call: the streams are read one after another. */
  async readStreams(streams: readonly string[], options?: ReadStreamsOptions): Promise<ReadStreamsResult> {
    const read = new Map<string, readonly RecordedEvent[]>();
    for (const stream of streams) {
      const events = await this.readStream(stream, options?.maxCount === undefined ? undefined : { maxCount: options.maxCount });
      if (events.kind === 'storage_failure') return events;
      read.set(stream, events.events);
    }
    return { kind: 'read', streams: read };
  }

  async readAll(options?: ReadAllOptions): Promise<ReadResult> {
    const after = options?.after;
    const events: RecordedEvent[] = [];
    try {
      const reading = this.client.readAll({
        direction: FORWARDS,
        fromPosition: after === undefined ? START : { commit: after, prepare: after },
      });
      for await (const resolved of reading) {
        const event = resolved.event;
        if (event === undefined || !isEngineStream(event.streamId)) continue;
        const position = positionOf(event);
        if (after !== undefined && position <= after) continue;
        events.push(toRecordedEvent(event, position));
        if (options?.maxCount !== undefined && events.length >= options.maxCount) break;
      }
      return { kind: 'read', events };
    } catch (error) {
      return storageFailure(`EventStoreDB: reading $all failed: ${describeError(error)}`);
    }
  }

  /** The newest engine event of `$all`, read backwards past system and checkpoint events. */
  async readLast(): Promise<TailRead> {
    try {
      for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: END })) {
        const event = resolved.event;
        if (event === undefined || !isEngineStream(event.streamId)) continue;
        const data = event.data as JsonValue;
        return { kind: 'tail', last: { stream: event.streamId, type: event.type, position: positionOf(event), data: () => data } };
      }
      return { kind: 'tail', last: undefined };
    } catch (error) {
      return storageFailure(`EventStoreDB: reading the last event of $all failed: ${describeError(error)}`);
    }
  }

  /**
   * The server's checkpoints (`checkpointReached`) arrive inside the client's transform, after it has
   * pushed the events before them into the readable buffer but possibly before this loop has handled
   * them; committing one there would move the caller's checkpoint past unhandled events. So a server
   * checkpoint is only noted, and handed to the handler (as an empty batch) by this loop once the
   * buffer is empty after a handled step: every event the server sent before it has then been handled,
   * and the transform, which awaits `checkpointReached`, pushes nothing while it is being noted.
   * Handled events advance the caller's checkpoint themselves, one batch per event.
   */
  subscribe(options: SubscribeOptions): Subscription {
    let stopping = false;
    let unsubscribe: (() => Promise<void>) | undefined;
    const run = async (): Promise<SubscriptionEnded> => {
      const after = options.after;
      if (stopping) return { kind: 'stopped' };
      let handledUpTo = after;
      let serverCheckpoint: bigint | undefined;
      const filter = serverFilter(options.filter);
      filter.checkpointReached = (_subscription, position) => {
        if (serverCheckpoint === undefined || position.commit > serverCheckpoint) serverCheckpoint = position.commit;
      };
      const subscription = this.client.subscribeToAll({
        fromPosition: after === undefined ? START : { commit: after, prepare: after },
        filter,
      });
      unsubscribe = () => subscription.unsubscribe();
      const handOver = async (events: readonly RecordedEvent[], position: bigint): Promise<SubscriptionEnded | undefined> => {
        try {
          await options.handle({ events, position });
        } catch (error) {
          await subscription.unsubscribe();
          return { kind: 'handler_failed', error };
        }
        handledUpTo = position;
        return undefined;
      };
      const handOverServerCheckpoint = async (): Promise<SubscriptionEnded | undefined> => {
        if (subscription.readableLength > 0 || serverCheckpoint === undefined) return undefined;
        if (handledUpTo !== undefined && serverCheckpoint <= handledUpTo) return undefined;
        return handOver([], serverCheckpoint);
      };
      try {
        for await (const resolved of subscription) {
          if (stopping) break;
          const event = resolved.event;
          if (event !== undefined && isEngineStream(event.streamId)) {
            const position = positionOf(event);
            if ((after === undefined || position > after) && passesFilter(options.filter, event.streamId, event.type)) {
              const failed = await handOver([toRecordedEvent(event, position)], position);
              if (failed !== undefined) return failed;
            }
          }
          const failed = await handOverServerCheckpoint();
          if (failed !== undefined) return failed;
        }
        return { kind: 'stopped' };
      } catch (error) {
        if (stopping) return { kind: 'stopped' };
        return storageFailure(`EventStoreDB: the subscription to $all dropped: ${describeError(error)}`);
      }
    };
    const ended = run();
    return {
      ended,
      stop: async () => {
        stopping = true;
        if (unsubscribe !== undefined) await unsubscribe();
        await ended;
      },
    };
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

/** Connects lazily: the first call reaches the server, and an unreachable one is a storage failure. */
export const openEventStoreDbEventStore = (connectionString: string): EventStoreDbEventStore =>
  new EventStoreDbEventStore(EventStoreDBClient.connectionString(connectionString));
