import type { Pool, PoolClient } from 'pg';
import type { CheckpointCommitted, CheckpointRead, CheckpointStore } from '../../../domain/ports/event-store';
import { storageFailure } from '../../../domain/ports/storage-failure';
import { describePgError } from './errors';

const UPSERT_CHECKPOINT =
  'INSERT INTO raes_checkpoints (subscriber_id, position) VALUES ($1, $2) ' +
  'ON CONFLICT (subscriber_id) DO UPDATE SET position = EXCLUDED.position';

/**
 * Checkpoints in the raes_checkpoints table. `commit` runs the synchronous `apply` (whose effects live
 * outside PostgreSQL) and then writes the checkpoint; when `apply` throws, nothing is written. A read
 * model kept in the same database uses `commitWith`: its writes and the checkpoint share one
 * transaction, both or neither.
 */
export class PostgresCheckpointStore implements CheckpointStore {
  constructor(
    private readonly pool: Pool,
    private readonly server: string,
    private readonly ready: () => Promise<string | undefined>,
  ) {}

  async read(subscriberId: string): Promise<CheckpointRead> {
    const notReady = await this.ready();
    if (notReady !== undefined) return storageFailure(notReady);
    try {
      const result = await this.pool.query<{ position: string }>(
        'SELECT position FROM raes_checkpoints WHERE subscriber_id = $1',
        [subscriberId],
      );
      const row = result.rows[0];
      return { kind: 'checkpoint', position: row === undefined ? undefined : BigInt(row.position) };
    } catch (error) {
      return storageFailure(`PostgreSQL: reading checkpoint '${subscriberId}' failed: ${describePgError(error, this.server)}`);
    }
  }

  async commit<T>(subscriberId: string, position: bigint, apply: () => T): Promise<CheckpointCommitted<T>> {
    const notReady = await this.ready();
    if (notReady !== undefined) return storageFailure(notReady);
    const value = apply();
    try {
      await this.pool.query(UPSERT_CHECKPOINT, [subscriberId, position.toString()]);
      return { kind: 'committed', value };
    } catch (error) {
      return storageFailure(`PostgreSQL: writing checkpoint '${subscriberId}' failed: ${describePgError(error, this.server)}`);
    }
  }

  /** Runs `apply` on a transaction's connection and writes the checkpoint in that same transaction. */
  async commitWith<T>(
    subscriberId: string,
    position: bigint,
    apply: (client: PoolClient) => Promise<T>,
  ): Promise<CheckpointCommitted<T>> {
    const notReady = await this.ready();
    if (notReady !== undefined) return storageFailure(notReady);
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      return storageFailure(`PostgreSQL: writing checkpoint '${subscriberId}' failed: ${describePgError(error, this.server)}`);
    }
    let broken: Error | undefined;
    try {
      try {
        await client.query('BEGIN');
      } catch (error) {
        broken = error as Error;
        return storageFailure(`PostgreSQL: writing checkpoint '${subscriberId}' failed: ${describePgError(error, this.server)}`);
      }
      let value: T;
      try {
        value = await apply(client);
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      }
      try {
        await client.query(UPSERT_CHECKPOINT, [subscriberId, position.toString()]);
        await client.query('COMMIT');
        return { kind: 'committed', value };
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        return storageFailure(`PostgreSQL: writing checkpoint '${subscriberId}' failed: ${describePgError(error, this.server)}`);
      }
    } finally {
      client.release(broken);
    }
  }
}
