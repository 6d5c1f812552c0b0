import type { Database, Statement } from 'better-sqlite3';
import type { CheckpointCommitted, CheckpointRead, CheckpointStore } from '../../../domain/ports/event-store';
import { describeError, storageFailure } from '../../../domain/ports/storage-failure';

/**
 * Checkpoints in the event store's own database. `commit` runs `apply` and the checkpoint upsert in one
 * transaction, so a projection whose read model lives in the same database (use the store's `database`)
 * never has a read model ahead of or behind its checkpoint.
 */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly select: Statement<[string], number>;
  private readonly upsert: Statement<[string, number]>;

  constructor(private readonly db: Database) {
    this.select = db.prepare<[string], number>('SELECT position FROM checkpoints WHERE subscriber_id = ?').pluck();
    this.upsert = db.prepare<[string, number]>(
      'INSERT INTO checkpoints (subscriber_id, position) VALUES (?, ?) ' +
        'ON CONFLICT (subscriber_id) DO UPDATE SET position = excluded.position',
    );
  }

  async read(subscriberId: string): Promise<CheckpointRead> {
    try {
      const position = this.select.get(subscriberId);
      return { kind: 'checkpoint', position: position === undefined ? undefined : BigInt(position) };
    } catch (error) {
      return storageFailure(`reading checkpoint '${subscriberId}' failed: ${describeError(error)}`);
    }
  }

  async commit<T>(subscriberId: string, position: bigint, apply: () => T): Promise<CheckpointCommitted<T>> {
    const failure = { fromApply: false, error: undefined as unknown };
    try {
      const value = this.db.transaction(() => {
        let applied: T;
        try {
          applied = apply();
        } catch (error) {
          failure.fromApply = true;
          throw error;
        }
        this.upsert.run(subscriberId, Number(position));
        return applied;
      }).immediate();
      return { kind: 'committed', value };
    } catch (error) {
      if (failure.fromApply) throw error;
      return storageFailure(`writing checkpoint '${subscriberId}' failed: ${describeError(error)}`);
    }
  }
}
