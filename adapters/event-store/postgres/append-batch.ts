import type { PoolClient, QueryResult } from 'pg';
import { reappendStartRevision, satisfiesExpectedRevision } from '../expected-revision';
import type { AppendOptions, AppendResult, CurrentRevision, EventToAppend } from '../../../domain/ports/event-store';
import { dataTextOf, metadataTextOf } from '../stored-text';
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
 * A string as an SQL literal. The store's sessions have standard_conforming_strings on (its session
 * settings), so a backslash is an ordinary character and only a quote is doubled. PostgreSQL text cannot
 * hold U+0000 (and a simple query would end at it): such a value is refused here, before anything is sent.
 */
const sqlLiteral = (text: string): string => {
  if (text.includes('\u0000')) {
    throw new Error(`PostgreSQL text cannot hold the character U+0000, found in '${text.slice(0, 120).replaceAll('\u0000', '\\u0000')}${text.length > 120 ? '...' : ''}'`);
  }
  return `'${text.replaceAll("'", "''")}'`;
};

const sqlLiteralOrNull = (text: string | null): string => (text === null ? 'NULL' : sqlLiteral(text));

/**
 * Opens the transaction, locks the log head row and reads the streams' last revisions, in one round
 * trip (one simple query of three statements, the streams' names as literals: a simple query takes no
 * parameters). The lock serializes appends across every engine on the database: positions are handed
 * out and become visible in commit order, so a reader paging by position never passes an event still
 * being written; the revisions are read under it, so no other engine moves them until this one commits.
 */
const beginLockAndRead = async (client: PoolClient, streams: readonly string[]): Promise<{ readonly head: bigint; readonly revisions: Map<string, CurrentRevision> }> => {
  const results = (await client.query(
    'BEGIN; SELECT position FROM raes_log_head WHERE id = 1 FOR UPDATE; ' +
      'SELECT s.stream, (SELECT e.revision FROM raes_events e WHERE e.stream = s.stream ORDER BY e.revision DESC LIMIT 1) AS revision ' +
      `FROM unnest(ARRAY[${streams.map(sqlLiteral).join(',')}]::text[]) AS s(stream)`,
  )) as unknown as [QueryResult, QueryResult<{ position: string }>, QueryResult<{ stream: string; revision: string | null }>];
  const revisions = new Map<string, CurrentRevision>();
  for (const row of results[2].rows) revisions.set(row.stream, row.revision === null ? 'no_stream' : BigInt(row.revision));
  return { head: BigInt(results[1].rows[0]!.position), revisions };
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

/** The rows of a batch as the VALUES list of one INSERT, in SQL literals. */
class EventRows {
  private readonly rows: string[] = [];

  add(stream: string, event: EventToAppend, revision: bigint, position: bigint): void {
    this.rows.push(
      `(${position},${sqlLiteral(stream)},${revision},${sqlLiteral(event.id)},${sqlLiteral(event.type)},${sqlLiteral(dataTextOf(event))},${sqlLiteralOrNull(metadataTextOf(event))})`,
    );
  }

  get size(): number {
    return this.rows.length;
  }

  get values(): string {
    return this.rows.join(',');
  }
}

/**
 * Writes a batch of appends in one transaction, in order, each checked against the stream as the
 * appends before it in the batch left it; conflicts and re-appends write nothing and do not disturb
 * the others. A re-append check needs the stream's rows in the database, so an append that could be
 * a re-append of a stream this batch already wrote to is deferred to the next transaction.
 * When it wrote, the transaction is committed by the statement that writes (`committed`); otherwise
 * the caller rolls it back, and on any error too.
 */
export const appendBatchInTransaction = async (
  client: PoolClient,
  appends: readonly PendingAppend[],
): Promise<{ readonly results: readonly BatchResult[]; readonly committed: boolean }> => {
  const { head, revisions } = await beginLockAndRead(client, [...new Set(appends.map((append) => append.stream))]);
  let position = head;
  const written = new Set<string>();
  const rows = new EventRows();
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
      rows.add(append.stream, append.events[index]!, first + BigInt(index), position);
    }
    const last = first + BigInt(count - 1);
    revisions.set(append.stream, last);
    written.add(append.stream);
    results.push({ kind: 'appended', nextExpectedRevision: last, lastPosition: position });
  }
  if (rows.size === 0) return { results, committed: false };
  // One round trip: the rows, the log head, the notification (it reaches listeners only when the
  // transaction commits) and the commit. A statement that fails aborts the transaction and skips the
  // statements after it, COMMIT included: the caller rolls back.
  await client.query(
    `INSERT INTO raes_events (position, stream, revision, id, type, data, metadata) VALUES ${rows.values}; ` +
      `UPDATE raes_log_head SET position = ${position} WHERE id = 1; ` +
      `SELECT pg_notify(${sqlLiteral(APPENDED_CHANNEL)}, '${position}'); COMMIT`,
  );
  return { results, committed: true };
};
