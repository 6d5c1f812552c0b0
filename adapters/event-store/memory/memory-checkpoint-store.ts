import { type CheckpointCommitted, type CheckpointRead, type CheckpointStore } from '../../../domain/ports/event-store';

/** Checkpoints in a map; `apply` and the write happen in one synchronous step, so they cannot part. */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly positions = new Map<string, bigint>();

  async read(subscriberId: string): Promise<CheckpointRead> {
    return { kind: 'checkpoint', position: this.positions.get(subscriberId) };
  }

  async commit<T>(subscriberId: string, position: bigint, apply: () => T): Promise<CheckpointCommitted<T>> {
    const value = apply();
    this.positions.set(subscriberId, position);
    return { kind: 'committed', value };
  }
}

