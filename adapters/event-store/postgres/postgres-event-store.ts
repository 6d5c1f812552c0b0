import { Pool, type PoolClient, type PoolConfig } from 'pg';
import { AppendedSignal, startCatchUpSubscription } from '../catch-up-subscription';
import type { AppendOptions, AppendResult, CurrentRevision, EventStore, EventToAppend, ReadAllOptions, ReadResult, ReadStreamBackwardsOptions, ReadStreamOptions, ReadStreamsOptions, ReadStreamsResult, SubscribeOptions, StorageFailure, Subscription } from '../../../domain/ports/event-store';
import { storageFailure } from '../../../domain/ports/storage-failure';
import { AppendListener } from './append-listener';
import { appendBatchInTransaction, type PendingAppend } from './append-batch';
import { AppendQueue, type BatchWriter } from './append-queue';
import { describePgError, describeServer, UNIQUE_VIOLATION } from './errors';
import { DEFAULT_POSTGRES_POOL_SIZE } from './pool-size';
import { EVENT_COLUMNS, recordedEventOf, type EventRow } from './rows';
import { ensureSchema } from './schema';
import { withSessionSettings } from './session-settings';
import { parsedLater, type TailRead } from '../store-tail';
import { streamsRead } from '../streams-read';

export { DEFAULT_POSTGRES_POOL_SIZE };

/** The largest revision a bigint column holds: a backwards read with no `fromRevision` starts below it. */
const LAST_REVISION = 9_223_372_036_854_775_807n;

const lastToRead = (fromRevision: bigint | undefined): bigint =>
  fromRevision === undefined || fromRevision > LAST_REVISION ? LAST_REVISION : fromRevision;

export type PostgresEventStoreOptions = {
  /** A postgres:// connection string. */
  readonly connectionString: string;
  /** Connections the store opens at most, besides the one that listens for appends. */
  readonly poolSize?: number;
  /** How long to wait for a connection before reporting the server unreachable. */
  readonly connectTimeoutMs?: number;
  /** How often subscriptions read the log when no notification came (a lost LISTEN connection). */
  readonly pollIntervalMs?: number;
  /** For commands that only read: every transaction is read-only, and missing tables are reported, not created. */
  readonly readOnly?: boolean;
};

/**
 * The event store on a PostgreSQL server, shared by any number of engines. Appends are serialized on
 * the server (see appendBatchInTransaction) and batched in the process (see AppendQueue); every
 * failure is a `storage_failure` value; subscriptions are woken by LISTEN/NOTIFY, with a poll as the
 * fallback.
 */
export class PostgresEventStore implements EventStore {
  /** Where the store connects, for messages (no password). */
  readonly server: string;
  private readonly pool: Pool;
  private readonly appended = new AppendedSignal();
  private readonly listener: AppendListener;
  private readonly pollIntervalMs: number;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly queue: AppendQueue;
  private schemaReady: Promise<string | undefined> | undefined;
  private closed = false;
  private readonly readOnly: boolean;

  constructor(options: PostgresEventStoreOptions) {
    this.readOnly = options.readOnly === true;
    this.server = describeServer(options.connectionString);
    // The durability contract: an acknowledged append is on the primary's disk, whatever the server's
    // or the URL's settings.
    const session = withSessionSettings(options.connectionString, {
      synchronous_commit: 'on',
      // Appends write their rows as SQL literals (append-batch.ts): a backslash in them is a backslash.
      standard_conforming_strings: 'on',
      ...(this.readOnly ? { default_transaction_read_only: 'on' } : {}),
    });
    const config: PoolConfig = {
      ...session,
      max: options.poolSize ?? DEFAULT_POSTGRES_POOL_SIZE,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    };
    this.pool = new Pool(config);
    // An idle connection the server closed: the next query gets a fresh one; nothing to crash for.
    this.pool.on('error', () => undefined);
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.listener = new AppendListener(
      { connectionString: options.connectionString, connectionTimeoutMillis: config.connectionTimeoutMillis },
      this.appended.notify,
      this.pollIntervalMs,
    );
    this.queue = new AppendQueue(this.writeBatch, this.failureOf);
  }

  /** Undefined once the schema exists; else why the store cannot be used (retried on the next call). */
  readonly ready = (): Promise<string | undefined> => {
    if (this.closed) return Promise.resolve(`PostgreSQL store at ${this.server} is closed`);
    if (this.schemaReady === undefined) {
      this.schemaReady = this.createSchema().then((failure) => {
        if (failure !== undefined) this.schemaReady = undefined;
        return failure;
      });
    }
    return this.schemaReady;
  };

  private async createSchema(): Promise<string | undefined> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      return `PostgreSQL: opening the event store failed: ${describePgError(error, this.server)}`;
    }
    try {
      if (this.readOnly) {
        const found = await client.query<{ present: boolean }>("SELECT to_regclass('raes_events') IS NOT NULL AS present");
        client.release();
        return found.rows[0]?.present === true
          ? undefined
          : `PostgreSQL: the database at ${this.server} holds no event store tables: nothing has run there, or it was emptied. Check --postgres-url (or RAES_POSTGRES_URL), or run \`raes-tools run\` first`;
      }
      await ensureSchema(client);
      client.release();
      return undefined;
    } catch (error) {
      client.release(error as Error);
      return `PostgreSQL: creating the event store tables at ${this.server} failed: ${describePgError(error, this.server)}`;
    }
  }

  append(stream: string, events: readonly EventToAppend[], options: AppendOptions): Promise<AppendResult> {
    const appending = this.appendWhenReady({ stream, events, options });
    this.inFlight.add(appending);
    void appending.finally(() => this.inFlight.delete(appending));
    return appending;
  }

  private async appendWhenReady(append: PendingAppend): Promise<AppendResult> {
    const notReady = await this.ready();
    if (notReady !== undefined) return storageFailure(notReady);
    return this.queue.enqueue(append);
  }

  /** One transaction for a batch of appends, committed by its last statement when something was written. */
  private readonly writeBatch: BatchWriter = async (batch) => {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      return { kind: 'failed', error };
    }
    let broken: Error | undefined;
    try {
      const { results, committed } = await appendBatchInTransaction(client, batch);
      if (committed) queueMicrotask(this.appended.notify);
      else await client.query('ROLLBACK');
      return { kind: 'written', results };
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      return { kind: 'failed', error };
    } finally {
      client.release(broken);
    }
  };

  /** What an append that failed alone answers: a conflict when the schema refused its revision. */
  private readonly failureOf = async (append: PendingAppend, error: unknown): Promise<AppendResult> => {
    if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) {
      const current = await this.currentRevision(append.stream);
      if (current.kind === 'storage_failure') return current;
      return { kind: 'version_conflict', stream: append.stream, expected: append.options.expectedRevision, actual: current.revision };
    }
    return storageFailure(`PostgreSQL: appending to stream '${append.stream}' failed: ${describePgError(error, this.server)}`);
  };

  private async currentRevision(
    stream: string,
  ): Promise<{ readonly kind: 'revision'; readonly revision: CurrentRevision } | StorageFailure> {
    try {
      const result = await this.pool.query<{ revision: string }>(
        'SELECT revision FROM raes_events WHERE stream = $1 ORDER BY revision DESC LIMIT 1',
        [stream],
      );
      const row = result.rows[0];
      return { kind: 'revision', revision: row === undefined ? 'no_stream' : BigInt(row.revision) };
    } catch (error) {
      return storageFailure(`PostgreSQL: reading stream '${stream}' failed: ${describePgError(error, this.server)}`);
    }
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<ReadResult> {
    const notReady = await this.ready();
    if (notReady !== undefined) return storageFailure(notReady);
    try {
      const result = await this.pool.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM raes_events WHERE stream = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
        [stream, (options?.fromRevision ?? 0n).toString(), options?.maxCount ?? null],
      );
      return { kind: 'read', events: result.rows.map(recordedEventOf) };
    } catch (error) {
      return storageFailure(`PostgreSQL: reading stream '${stream}' failed: ${describePgError(error, this.server)}`);
    }
  }

  /** Walks the UNIQUE(stream, revision) index backwards from the revision: no sort, at most maxCount rows. */
  async readStreamBackwards(stream: string, options: ReadStreamBackwardsOptions): Promise<ReadResult> {
    const notReady = await this.ready();
    if (notReady !== undefined) return storageFailure(notReady);
    try {
      const result = await this.pool.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM raes_events WHERE stream = $1 AND revision <= $2 ORDER BY revision DESC LIMIT $3`,
        // The server refuses a negative LIMIT: a count below one reads nothing.
        [stream, lastToRead(options.fromRevision).toString(), Math.max(0, options.maxCount)],
      );
      return { kind: 'read', events: result.rows.map(recordedEventOf) };
    } catch (error) {
      return storageFailure(`PostgreSQL: reading stream '${stream}' backwards failed: ${describePgError(error, this.server)}`);
    }
  }

  async readStreams(streams: readonly string[], options?: ReadStreamsOptions): Promise<ReadStreamsResult> {
    const notReady = await this.ready();
    if (notReady !== undefined) return storageFailure(notReady);
    try {
      // Revisions run from 0 without gaps: the first maxCount events of a stream are those below it.
      const result = await this.pool.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM raes_events WHERE stream = ANY($1::text[]) AND ($2::bigint IS NULL OR revision < $2) ORDER BY stream, revision`,
        [streams, options?.maxCount ?? null],
      );
      return streamsRead(streams, result.rows.map(recordedEventOf));
    } catch (error) {
      return storageFailure(`PostgreSQL: reading ${streams.length} streams failed: ${describePgError(error, this.server)}`);
    }
  }

  async readAll(options?: ReadAllOptions): Promise<ReadResult> {
    const notReady = await this.ready();
    if (notReady !== undefined) return storageFailure(notReady);
    try {
      const result = await this.pool.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM raes_events WHERE position > $1 ORDER BY position LIMIT $2`,
        [(options?.after ?? 0n).toString(), options?.maxCount ?? null],
      );
      return { kind: 'read', events: result.rows.map(recordedEventOf) };
    } catch (error) {
      return storageFailure(`PostgreSQL: reading the log failed: ${describePgError(error, this.server)}`);
    }
  }

  async readLast(): Promise<TailRead> {
    const notReady = await this.ready();
    if (notReady !== undefined) return storageFailure(notReady);
    try {
      const result = await this.pool.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM raes_events ORDER BY position DESC LIMIT 1`);
      const row = result.rows[0];
      if (row === undefined) return { kind: 'tail', last: undefined };
      return { kind: 'tail', last: { stream: row.stream, type: row.type, position: BigInt(row.position), data: parsedLater(row.data) } };
    } catch (error) {
      return storageFailure(`PostgreSQL: reading the last event failed: ${describePgError(error, this.server)}`);
    }
  }

  subscribe(options: SubscribeOptions): Subscription {
    void this.listener.start();
    return startCatchUpSubscription(
      {
        readAll: (readOptions) => this.readAll(readOptions),
        onAppended: this.appended.onAppended,
        pollIntervalMs: this.pollIntervalMs,
      },
      options,
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.allSettled([...this.inFlight]);
    this.closed = true;
    this.appended.clear();
    await this.listener.close();
    await this.pool.end().catch(() => undefined);
  }
}

/** A store over the server at `connectionString`; it connects on first use, so opening never fails. */
export const openPostgresEventStore = (options: PostgresEventStoreOptions): PostgresEventStore =>
  new PostgresEventStore(options);
