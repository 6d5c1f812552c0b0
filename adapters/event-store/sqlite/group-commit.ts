import type { Database, Statement } from 'better-sqlite3';
import { reappendStartRevision, satisfiesExpectedRevision } from '../expected-revision';
import { describeError, storageFailure, type AppendResult, type EventToAppend, type ExpectedRevision } from '../port';

type PendingAppend = {
  readonly stream: string;
  readonly events: readonly EventToAppend[];
  readonly expectedRevision: ExpectedRevision;
  readonly resolve: (result: AppendResult) => void;
};

type InsertRow = [string, number, string, string, string, string | null, number];

/**
 * Group commit: appends requested in the same turn of the event loop are queued and written by one
 * transaction in a `setImmediate` callback, so they share one fsync. Each append runs inside its own
 * savepoint, so a conflict or a failed insert undoes only that append; every caller's promise resolves
 * after COMMIT returns, that is, after its events are durable.
 */
export class GroupCommitWriter {
  private queue: PendingAppend[] = [];
  private scheduled = false;
  private readonly currentRevision: Statement<[string], number | null>;
  private readonly idsBetween: Statement<[string, number, number], { id: string; position: number }>;
  private readonly insert: Statement<InsertRow>;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackToSavepoint: Statement;

  constructor(
    private readonly db: Database,
    private readonly onCommitted: () => void,
    private readonly now: () => number = Date.now,
  ) {
    this.currentRevision = db.prepare<[string], number | null>('SELECT MAX(revision) FROM events WHERE stream = ?').pluck();
    this.idsBetween = db.prepare<[string, number, number], { id: string; position: number }>(
      'SELECT id, position FROM events WHERE stream = ? AND revision BETWEEN ? AND ? ORDER BY revision',
    );
    this.insert = db.prepare<InsertRow>(
      'INSERT INTO events (stream, revision, id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT append');
    this.release = db.prepare('RELEASE append');
    this.rollbackToSavepoint = db.prepare('ROLLBACK TO append');
  }

  enqueue(stream: string, events: readonly EventToAppend[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve) => {
      this.queue.push({ stream, events, expectedRevision, resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Writes everything queued now; the store calls it on close so no append is left waiting. */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    const results: AppendResult[] = new Array<AppendResult>(batch.length);
    let anyAppended = false;
    try {
      this.begin.run();
      const recordedAt = this.now();
      // A lone append needs no savepoint: on failure the whole transaction is rolled back.
      const alone = batch.length === 1;
      for (let index = 0; index < batch.length; index += 1) {
        const result = alone ? this.appendOne(batch[index]!, recordedAt) : this.appendInSavepoint(batch[index]!, recordedAt);
        if (result.kind === 'appended') anyAppended = true;
        results[index] = result;
      }
      this.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      const failure = storageFailure(`committing ${batch.length} append(s) failed: ${describeError(error)}`);
      for (let index = 0; index < batch.length; index += 1) results[index] = failure;
      anyAppended = false;
    }
    for (let index = 0; index < batch.length; index += 1) batch[index]!.resolve(results[index]!);
    if (anyAppended) this.onCommitted();
  }

  private appendInSavepoint(pending: PendingAppend, recordedAt: number): AppendResult {
    this.savepoint.run();
    try {
      const result = this.appendOne(pending, recordedAt);
      this.release.run();
      return result;
    } catch (error) {
      this.rollbackToSavepoint.run();
      this.release.run();
      return storageFailure(`appending to '${pending.stream}' failed: ${describeError(error)}`);
    }
  }

  private appendOne(pending: PendingAppend, recordedAt: number): AppendResult {
    const { stream, events, expectedRevision } = pending;
    const last = this.currentRevision.get(stream);
    const current = last === null || last === undefined ? 'no_stream' : BigInt(last);
    const reappendStart = reappendStartRevision(expectedRevision, current, events.length);
    if (reappendStart !== undefined) {
      const already = this.alreadyAppended(pending, reappendStart);
      if (already !== undefined) return already;
    }
    if (!satisfiesExpectedRevision(expectedRevision, current)) {
      return { kind: 'version_conflict', stream, expected: expectedRevision, actual: current };
    }
    let revision = current === 'no_stream' ? 0 : Number(current) + 1;
    let lastPosition = 0n;
    for (const event of events) {
      const info = this.insert.run(
        stream,
        revision,
        event.id,
        event.type,
        JSON.stringify(event.data),
        event.metadata === undefined ? null : JSON.stringify(event.metadata),
        recordedAt,
      );
      lastPosition = BigInt(info.lastInsertRowid);
      revision += 1;
    }
    return { kind: 'appended', nextExpectedRevision: BigInt(revision - 1), lastPosition };
  }

  /** The earlier append's result when the events from `start` on carry this append's ids, in order. */
  private alreadyAppended(pending: PendingAppend, start: bigint): AppendResult | undefined {
    const { events } = pending;
    const first = Number(start);
    const recorded = this.idsBetween.all(pending.stream, first, first + events.length - 1);
    if (recorded.length !== events.length) return undefined;
    for (let index = 0; index < events.length; index += 1) {
      if (recorded[index]!.id !== events[index]!.id) return undefined;
    }
    return {
      kind: 'appended',
      nextExpectedRevision: BigInt(first + events.length - 1),
      lastPosition: BigInt(recorded[events.length - 1]!.position),
    };
  }
}
