import type { PoolClient, QueryResult } from 'pg';
import { reappendStartRevision, satisfiesExpectedRevision } from '../expected-revision';
import type { AppendOptions, AppendResult, CurrentRevision, EventToAppend } from '../../../domain/ports/event-store';
import { APPENDED_CHANNEL } from './schema';

/** One caller's append, waiting in the store's queue. */
export type PendingAppend = {
  readonly stream: string;
  readonly events: readonly EventToAppend[];
  readonly options: AppendOptions;
};

/** An append's result, or `deferred` when it must wait for the next transaction (see below). */
export type BatchResult = AppendResult | 'deferred';

/**
 * Opens the transaction and locks the log head row, in one round trip. The lock serializes appends
 * across every engine on the database: positions are handed out and become visible in commit order,
 * so a reader paging by position never passes an event still being written.
 */
const beginAndLockHead = async (client: PoolClient): Promise<bigint> => {
  const results = (await client.query(
    'BEGIN; SELECT position FROM raes_log_head WHERE id = 1 FOR UPDATE',
  )) as unknown as QueryResult<{ position: string }>[];
  return BigInt(results[1]!.rows[0]!.position);
};

const currentRevisions = async (client: PoolClient, streams: readonly string[]): Promise<Map<string, CurrentRevision>> => {
  const result = await client.query<{ stream: string; revision: string | null }>(
    'SELECT s.stream, (SELECT e.revision FROM raes_events e WHERE e.stream = s.stream ORDER BY e.revision DESC LIMIT 1) AS revision ' +
      'FROM unnest($1::text[]) AS s(stream)',
    [streams],
  );
  const revisions = new Map<string, CurrentRevision>();
  for (const row of result.rows) revisions.set(row.stream, row.revision === null ? 'no_stream' : BigInt(row.revision));
  return revisions;
};

/** The earlier append's result when the events from `start` on carry these ids, in order. */
const alreadyAppended = async (client: PoolClient, append: PendingAppend, start: bigint): Promise<AppendResult | undefined> => {
  const result = await client.query<{ id: string; revision: string; position: string }>(
    'SELECT id, revision, position FROM raes_events WHERE stream = $1 AND revision >= $2 ORDER BY revision LIMIT $3',
    [append.stream, start.toString(), append.events.length],
  );
  if (result.rows.length !== append.events.length) return undefined;
  for (let index = 0; index < append.events.length; index += 1) {
    if (result.rows[index]!.id !== append.events[index]!.id) return undefined;
  }
  const last = result.rows[result.rows.length - 1]!;
  return { kind: 'appended', nextExpectedRevision: BigInt(last.revision), lastPosition: BigInt(last.position) };
};

/** The rows of a batch, column by column, for one INSERT ... SELECT FROM unnest(...). */
class EventColumns {
  readonly positions: string[] = [];
  readonly streams: string[] = [];
  readonly revisions: string[] = [];
  readonly ids: string[] = [];
  readonly types: string[] = [];
  readonly data: string[] = [];
  readonly metadata: (string | null)[] = [];

  add(stream: string, event: EventToAppend, revision: bigint, position: bigint): void {
    this.positions.push(position.toString());
    this.streams.push(stream);
    this.revisions.push(revision.toString());
    this.ids.push(event.id);
    this.types.push(event.type);
    this.data.push(event.dataJson ?? JSON.stringify(event.data));
    this.metadata.push(event.metadataJson ?? (event.metadata === undefined ? null : JSON.stringify(event.metadata)));
  }

  get size(): number {
    return this.positions.length;
  }
}

/**
 * Writes a batch of appends in one transaction, in order, each checked against the stream as the
 * appends before it in the batch left it; conflicts and re-appends write nothing and do not disturb
 * the others. A re-append check needs the stream's rows in the database, so an append that could be
 * a re-append of a stream this batch already wrote to is deferred to the next transaction.
 * The caller commits when `wrote`, else rolls back; on any error it rolls back.
 */
export const appendBatchInTransaction = async (
  client: PoolClient,
  appends: readonly PendingAppend[],
): Promise<{ readonly results: readonly BatchResult[]; readonly wrote: boolean }> => {
  let position = await beginAndLockHead(client);
  const revisions = await currentRevisions(client, [...new Set(appends.map((append) => append.stream))]);
  const written = new Set<string>();
  const columns = new EventColumns();
  const results: BatchResult[] = [];
  for (const append of appends) {
    const current = revisions.get(append.stream) ?? 'no_stream';
    const count = append.events.length;
    const reappendStart = reappendStartRevision(append.options.expectedRevision, current, count);
    if (reappendStart !== undefined) {
      if (written.has(append.stream)) {
        results.push('deferred');
        continue;
      }
      const already = await alreadyAppended(client, append, reappendStart);
      if (already !== undefined) {
        results.push(already);
        continue;
      }
    }
    if (!satisfiesExpectedRevision(append.options.expectedRevision, current)) {
      results.push({ kind: 'version_conflict', stream: append.stream, expected: append.options.expectedRevision, actual: current });
      continue;
    }
    if (count === 0) {
      results.push({ kind: 'appended', nextExpectedRevision: current === 'no_stream' ? -1n : current, lastPosition: position });
      continue;
    }
    const first = current === 'no_stream' ? 0n : current + 1n;
    for (let index = 0; index < count; index += 1) {
      position += 1n;
      columns.add(append.stream, append.events[index]!, first + BigInt(index), position);
    }
    const last = first + BigInt(count - 1);
    revisions.set(append.stream, last);
    written.add(append.stream);
    results.push({ kind: 'appended', nextExpectedRevision: last, lastPosition: position });
  }
  if (columns.size === 0) return { results, wrote: false };
  // One round trip: the rows, the log head and the notification, which reaches listeners only when
  // the transaction commits. A data-modifying WITH runs whether or not the rest reads it.
  await client.query(
    'WITH inserted AS (INSERT INTO raes_events (position, stream, revision, id, type, data, metadata) ' +
      'SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[])), ' +
      'head AS (UPDATE raes_log_head SET position = $8 WHERE id = 1 RETURNING position) ' +
      'SELECT pg_notify($9, position::text) FROM head',
    [columns.positions, columns.streams, columns.revisions, columns.ids, columns.types, columns.data, columns.metadata, position.toString(), APPENDED_CHANNEL],
  );
  return { results, wrote: true };
};
