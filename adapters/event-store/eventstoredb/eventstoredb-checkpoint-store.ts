import { BACKWARDS, END, StreamNotFoundError, jsonEvent, type EventStoreDBClient } from '@eventstore/db-client';
import type { CheckpointCommitted, CheckpointRead, CheckpointStore } from '../../../domain/ports/event-store';
import { describeError, storageFailure } from '../../../domain/ports/storage-failure';

/** Streams holding checkpoints; the store's reads and subscriptions skip them. */
export const CHECKPOINT_STREAM_PREFIX = 'raes-checkpoint-';

/**
 * Checkpoints as events in one stream per subscriber (the last one counts; the stream keeps only a few).
 * EventStoreDB has no transaction spanning a read model elsewhere, so `apply` runs first and the
 * checkpoint is written after: a crash between them replays that event once (at least once).
 */
export class EventStoreDbCheckpointStore implements CheckpointStore {
  private readonly limitedStreams = new Set<string>();

  constructor(private readonly client: EventStoreDBClient) {}

  async read(subscriberId: string): Promise<CheckpointRead> {
    try {
      for await (const resolved of this.client.readStream(CHECKPOINT_STREAM_PREFIX + subscriberId, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      })) {
        const data = resolved.event?.data as { position?: unknown } | undefined;
        if (typeof data?.position === 'string') return { kind: 'checkpoint', position: BigInt(data.position) };
      }
      return { kind: 'checkpoint', position: undefined };
    } catch (error) {
      if (error instanceof StreamNotFoundError) return { kind: 'checkpoint', position: undefined };
      return storageFailure(`EventStoreDB: reading checkpoint '${subscriberId}' failed: ${describeError(error)}`);
    }
  }

  async commit<T>(subscriberId: string, position: bigint, apply: () => T): Promise<CheckpointCommitted<T>> {
    const value = apply();
    const stream = CHECKPOINT_STREAM_PREFIX + subscriberId;
    try {
      if (!this.limitedStreams.has(stream)) {
        await this.client.setStreamMetadata(stream, { maxCount: 5 });
        this.limitedStreams.add(stream);
      }
      await this.client.appendToStream(
        stream,
        jsonEvent({ type: 'CheckpointStored', data: { position: position.toString() } }),
      );
      return { kind: 'committed', value };
    } catch (error) {
      return storageFailure(`EventStoreDB: writing checkpoint '${subscriberId}' failed: ${describeError(error)}`);
    }
  }
}
