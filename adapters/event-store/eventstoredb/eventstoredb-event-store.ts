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
import type { AppendOptions, AppendResult, EventFilter, EventStore, EventToAppend, JsonObject, JsonValue, ReadAllOptions, ReadResult, ReadStreamOptions, RecordedEvent, SubscribeOptions, Subscription, SubscriptionEnded } from '../../../domain/ports/event-store';
import { describeError, storageFailure } from '../../../domain/ports/storage-failure';
import { passesFilter } from '../event-filter';
import { fromEsdbError, fromUnsuccessfulAppend } from './errors';
import { toEsdbEventId } from './event-ids';
import { CHECKPOINT_STREAM_PREFIX, EventStoreDbCheckpointStore } from './eventstoredb-checkpoint-store';
import { toEsdbExpectedRevision } from './expected-revision';
import type { TailRead } from '../store-tail';

/** What the store writes as EventStoreDB metadata: the port's id and metadata. */
type MetadataEnvelope = { readonly event_id: string; readonly metadata: JsonObject | null };

const isEngineStream = (stream: string): boolean =>
  !stream.startsWith('$') && !stream.startsWith(CHECKPOINT_STREAM_PREFIX);

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
  readonly checkpoints: EventStoreDbCheckpointStore;

  constructor(private readonly client: EventStoreDBClient) {
    this.checkpoints = new EventStoreDbCheckpointStore(client);
  }

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

  subscribe(options: SubscribeOptions): Subscription {
    let stopping = false;
    let unsubscribe: (() => Promise<void>) | undefined;
    const run = async (): Promise<SubscriptionEnded> => {
      const checkpoint = await this.checkpoints.read(options.subscriberId);
      if (checkpoint.kind === 'storage_failure') return checkpoint;
      const after = checkpoint.position;
      if (stopping) return { kind: 'stopped' };
      const filter = serverFilter(options.filter);
      filter.checkpointReached = async (_subscription, position) => {
        await this.checkpoints.commit(options.subscriberId, position.commit, () => undefined);
      };
      const subscription = this.client.subscribeToAll({
        fromPosition: after === undefined ? START : { commit: after, prepare: after },
        filter,
      });
      unsubscribe = () => subscription.unsubscribe();
      try {
        for await (const resolved of subscription) {
          if (stopping) break;
          const event = resolved.event;
          if (event === undefined || !isEngineStream(event.streamId)) continue;
          const position = positionOf(event);
          if (after !== undefined && position <= after) continue;
          if (!passesFilter(options.filter, event.streamId, event.type)) continue;
          const recorded = toRecordedEvent(event, position);
          let committed;
          try {
            committed = await this.checkpoints.commit(options.subscriberId, position, () => options.handle(recorded));
          } catch (error) {
            await subscription.unsubscribe();
            return { kind: 'handler_failed', error };
          }
          if (committed.kind === 'storage_failure') {
            await subscription.unsubscribe();
            return committed;
          }
        }
        return { kind: 'stopped' };
      } catch (error) {
        if (stopping) return { kind: 'stopped' };
        return storageFailure(`EventStoreDB: subscription '${options.subscriberId}' dropped: ${describeError(error)}`);
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
