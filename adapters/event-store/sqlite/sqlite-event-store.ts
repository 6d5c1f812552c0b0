import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { AppendedSignal, startCatchUpSubscription } from '../catch-up-subscription';
import type { AppendOptions, AppendResult, EventStore, EventToAppend, JsonObject, JsonValue, ReadAllOptions, ReadResult, ReadStreamBackwardsOptions, ReadStreamOptions, ReadStreamsOptions, ReadStreamsResult, RecordedEvent, StorageFailure, SubscribeOptions, Subscription } from '../../../domain/ports/event-store';
import { describeError, storageFailure } from '../../../domain/ports/storage-failure';
import { parseStored } from '../../../domain/ports/unreadable-event';
import type { AppendWriter } from './append-queue';
import { CallingThreadCommit } from './calling-thread-commit';
import { InThreadWriter } from './in-thread-writer';
import { prepareDatabase } from './schema';
import { openReadOnlyDatabase } from './read-only-database';
import { WorkerWriter } from './worker-writer';
import { makeFolderOrThrow } from '../../files/make-folder';
import { parsedLater, type TailRead } from '../store-tail';
import { streamsRead } from '../streams-read';
import { metadataOfColumn } from './metadata-column';

export const DEFAULT_SQLITE_PATH = 'esdata/events.sqlite';

export type SqliteEventStoreOptions = {
  readonly path: string;
  /** How long a writer waits for another process's write lock before the append fails. */
  readonly busyTimeoutMs?: number;
  /** How often subscriptions look for events appended by other processes. */
  readonly pollIntervalMs?: number;
  /**
   * For commands that only read: the file must exist, nothing is created or written beside it
   * (see openReadOnlyDatabase), and every append is refused.
   */
  readonly readOnly?: boolean;
};

/** The writer of a store opened read-only: there is none. */
const refusingWriter = (path: string): AppendWriter => ({
  enqueue: () => Promise.resolve(storageFailure(`the SQLite event store at '${path}' was opened read-only; appends go through a writer command (run, recover, resolve)`)),
  close: () => Promise.resolve(),
});

type EventRow = {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string | Buffer | null;
  recorded_at: number;
};

const COLUMNS = 'position, stream, revision, id, type, data, metadata, recorded_at';
const NO_LIMIT = -1;

/** A row of the event selects in `.raw()` form: the columns of COLUMNS, in order. */
type EventTuple = [position: number, stream: string, revision: number, id: string, type: string, data: string, metadata: string | Buffer | null, recordedAt: number];

const NOT_PARSED: unique symbol = Symbol('not parsed');

/**
 * An event as the store reads it (`readAll`, `readStream`, `readStreams`). A replay reads every event of
 * the store, and most readers look at few fields of most events: `data`, `metadata` and `recordedAt` are
 * parsed or built on first access (then kept), and the JSON text stays available as `dataJson`.
 */
class ReadEvent implements RecordedEvent {
  readonly revision: bigint;
  readonly position: bigint;
  private parsedData: JsonValue | typeof NOT_PARSED = NOT_PARSED;
  private parsedMetadata: JsonObject | undefined | typeof NOT_PARSED = NOT_PARSED;
  private builtRecordedAt: Date | undefined;

  constructor(
    position: number,
    readonly stream: string,
    revision: number,
    readonly id: string,
    readonly type: string,
    readonly dataJson: string,
    private readonly metadataColumn: string | Buffer | null,
    private readonly recordedAtMs: number,
  ) {
    this.position = BigInt(position);
    this.revision = BigInt(revision);
  }

  get data(): JsonValue {
    if (this.parsedData === NOT_PARSED) this.parsedData = parseStored<JsonValue>(this.dataJson, 'data', this);
    return this.parsedData;
  }

  get metadata(): JsonObject | undefined {
    if (this.parsedMetadata === NOT_PARSED) {
      this.parsedMetadata =
        typeof this.metadataColumn === 'string' ? parseStored<JsonObject>(this.metadataColumn, 'metadata', this) : metadataOfColumn(this.metadataColumn);
    }
    return this.parsedMetadata;
  }

  get recordedAt(): Date {
    if (this.builtRecordedAt === undefined) this.builtRecordedAt = new Date(this.recordedAtMs);
    return this.builtRecordedAt;
  }
}

const toReadEvent = (row: EventTuple): RecordedEvent =>
  new ReadEvent(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7]);

const IN_MEMORY = ':memory:';

/**
 * The embedded default store: one SQLite file, group-committed appends, several processes allowed.
 * Appends are written by a writer thread with its own connection (an in-memory database, which no
 * other connection can see, is written on this thread); an append with no other to share its commit
 * is committed on this thread through `database` (calling-thread-commit.ts); reads and checkpoints
 * use `database`.
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  readonly gaplessPositions = true;
  private readonly writer: AppendWriter;
  private readonly appended = new AppendedSignal();
  private readonly selectStream: Statement<[string, number, number], EventTuple>;
  private readonly selectStreamBackwards: Statement<[string, number, number], EventTuple>;
  private readonly selectStreams: Statement<[string, number], EventTuple>;
  private readonly selectAll: Statement<[number, number], EventTuple>;
  private readonly selectLast: Statement<[], EventRow>;
  private closed = false;
  private readonly readOnly: boolean;

  /** `database` is the store's connection: projections create their read-model tables in it. */
  constructor(
    readonly database: Database,
    private readonly pollIntervalMs: number,
    busyTimeoutMs: number,
    readOnlyPath?: string,
  ) {
    const onCommitted = this.appended.notify;
    this.readOnly = readOnlyPath !== undefined;
    this.writer =
      readOnlyPath !== undefined
        ? refusingWriter(readOnlyPath)
        : database.memory || database.name === IN_MEMORY || database.name === ''
          ? new InThreadWriter(database, onCommitted)
          : new WorkerWriter({ path: database.name, busyTimeoutMs, onCommitted, lone: new CallingThreadCommit(database, busyTimeoutMs) });
    this.selectStream = database
      .prepare<[string, number, number], EventTuple>(
        `SELECT ${COLUMNS} FROM events WHERE stream_id = (SELECT id FROM streams WHERE name = ?) ` +
          'AND revision >= ? ORDER BY revision LIMIT ?',
      )
      .raw(true);
    // Walks the UNIQUE(stream_id, revision) index backwards from the revision: no sort, and no row
    // before the last maxCount is read.
    this.selectStreamBackwards = database
      .prepare<[string, number, number], EventTuple>(
        `SELECT ${COLUMNS} FROM events WHERE stream_id = (SELECT id FROM streams WHERE name = ?) ` +
          'AND revision <= ? ORDER BY revision DESC LIMIT ?',
      )
      .raw(true);
    // The names go in as one JSON array: any number of them, one statement. Revisions run from 0
    // without gaps, so a stream's first maxCount events are those below it.
    this.selectStreams = database
      .prepare<[string, number], EventTuple>(
        `SELECT ${COLUMNS} FROM events WHERE stream_id IN (SELECT id FROM streams WHERE name IN (SELECT value FROM json_each(?))) ` +
          'AND revision < ? ORDER BY stream_id, revision',
      )
      .raw(true);
    this.selectAll = database
      .prepare<[number, number], EventTuple>(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`)
      .raw(true);
    this.selectLast = database.prepare<[], EventRow>(`SELECT ${COLUMNS} FROM events ORDER BY position DESC LIMIT 1`);
  }

  async readLast(): Promise<TailRead> {
    try {
      const row = this.selectLast.get();
      if (row === undefined) return { kind: 'tail', last: undefined };
      return { kind: 'tail', last: { stream: row.stream, type: row.type, position: BigInt(row.position), data: parsedLater(row.data) } };
    } catch (error) {
      return storageFailure(`reading the last event failed: ${describeError(error)}`);
    }
  }

  append(stream: string, events: readonly EventToAppend[], options: AppendOptions): Promise<AppendResult> {
    if (this.closed) return Promise.resolve(storageFailure(`the SQLite event store is closed`));
    return this.writer.enqueue(stream, events, options.expectedRevision);
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<ReadResult> {
    try {
      const rows = this.selectStream.all(stream, Number(options?.fromRevision ?? 0n), options?.maxCount ?? NO_LIMIT);
      return { kind: 'read', events: rows.map(toReadEvent) };
    } catch (error) {
      return storageFailure(`reading stream '${stream}' failed: ${describeError(error)}`);
    }
  }

  async readStreamBackwards(stream: string, options: ReadStreamBackwardsOptions): Promise<ReadResult> {
    try {
      const last = options.fromRevision === undefined ? Number.MAX_SAFE_INTEGER : Number(options.fromRevision);
      // LIMIT reads without limit when negative: a count below one reads nothing.
      const rows = this.selectStreamBackwards.all(stream, last, Math.max(0, options.maxCount));
      return { kind: 'read', events: rows.map(toReadEvent) };
    } catch (error) {
      return storageFailure(`reading stream '${stream}' backwards failed: ${describeError(error)}`);
    }
  }

  async readStreams(streams: readonly string[], options?: ReadStreamsOptions): Promise<ReadStreamsResult> {
    try {
      const rows = this.selectStreams.all(JSON.stringify(streams), options?.maxCount ?? Number.MAX_SAFE_INTEGER);
      return streamsRead(streams, rows.map(toReadEvent));
    } catch (error) {
      return storageFailure(`reading ${streams.length} streams failed: ${describeError(error)}`);
    }
  }

  async readAll(options?: ReadAllOptions): Promise<ReadResult> {
    try {
      const rows = this.selectAll.all(Number(options?.after ?? 0n), options?.maxCount ?? NO_LIMIT);
      const events = new Array<RecordedEvent>(rows.length);
      for (let i = 0; i < rows.length; i++) events[i] = toReadEvent(rows[i]!);
      return { kind: 'read', events };
    } catch (error) {
      return storageFailure(`reading all events failed: ${describeError(error)}`);
    }
  }

  subscribe(options: SubscribeOptions): Subscription {
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
    this.closed = true;
    await this.writer.close();
    this.appended.clear();
    if (!this.readOnly) leaveInRollbackMode(this.database);
    this.database.close();
  }
}

/**
 * A closed store is left in rollback mode, so that a read-only reader can open it in place without
 * SQLite creating `-wal` and `-shm` files beside it (see openReadOnlyDatabase). Switching needs the
 * file to itself: while another connection (a reader following the log, say) has it open, the switch
 * fails at once and the file stays in WAL mode, its `-wal` kept for that connection; the next writer
 * to close it alone switches it.
 */
const leaveInRollbackMode = (database: Database): void => {
  if (database.memory || database.readonly) return;
  try {
    database.pragma('busy_timeout = 0');
    database.pragma('journal_mode = DELETE');
  } catch {
    // Another connection holds the file: it stays in WAL mode, which every reader handles.
  }
};

/** Opens (creating it and its folder when missing) the SQLite file at `options.path`. */
export const openSqliteEventStore = (options: SqliteEventStoreOptions): SqliteEventStore | StorageFailure => {
  if (options.readOnly === true) return openReadOnlySqliteEventStore(options);
  try {
    if (options.path !== IN_MEMORY) makeFolderOrThrow(dirname(options.path));
    const database = new BetterSqlite3(options.path);
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    prepareDatabase(database, busyTimeoutMs);
    return new SqliteEventStore(database, options.pollIntervalMs ?? 200, busyTimeoutMs);
  } catch (error) {
    return storageFailure(`opening the SQLite event store at '${options.path}' failed: ${describeError(error)}`);
  }
};

const hasEventTables = (database: Database): boolean =>
  database.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'streams')").pluck().get() === 2;

/** Opens an existing file for reading only; a file without the store's tables is reported, not created. */
const openReadOnlySqliteEventStore = (options: SqliteEventStoreOptions): SqliteEventStore | StorageFailure => {
  if (!existsSync(options.path)) {
    return storageFailure(`there is no SQLite event store at '${options.path}': nothing has run there. Check --data-dir (or RAES_SQLITE_PATH), or run \`raes-tools run\` first`);
  }
  let database: Database | undefined;
  try {
    database = openReadOnlyDatabase(options.path);
    if (!hasEventTables(database)) {
      database.close();
      return storageFailure(
        `the SQLite event store at '${options.path}' holds no event tables: the file was emptied or is not an event store. Restore it from a backup, or check --data-dir`,
      );
    }
    return new SqliteEventStore(database, options.pollIntervalMs ?? 200, 0, options.path);
  } catch (error) {
    database?.close();
    return storageFailure(`opening the SQLite event store at '${options.path}' read-only failed: ${describeError(error)}`);
  }
};
