import type { PoolClient } from 'pg';
import { reappendStartRevision, satisfiesExpectedRevision } from '../expected-revision';
import type { AppendOptions, AppendResult, CurrentRevision, EventToAppend } from '../port';
import { APPENDED_CHANNEL } from './schema';

const currentRevision = async (client: PoolClient, stream: string): Promise<CurrentRevision> => {
  const result = await client.query<{ revision: string }>(
    'SELECT revision FROM raes_events WHERE stream = $1 ORDER BY revision DESC LIMIT 1',
    [stream],
  );
  const row = result.rows[0];
  return row === undefined ? 'no_stream' : BigInt(row.revision);
};

/** The earlier append's result when the events from `start` on carry these ids, in order. */
const alreadyAppended = async (
  client: PoolClient,
  stream: string,
  events: readonly EventToAppend[],
  start: bigint,
): Promise<AppendResult | undefined> => {
  const result = await client.query<{ id: string; revision: string; position: string }>(
    'SELECT id, revision, position FROM raes_events WHERE stream = $1 AND revision >= $2 ORDER BY revision LIMIT $3',
    [stream, start.toString(), events.length],
  );
  if (result.rows.length !== events.length) return undefined;
  for (let index = 0; index < events.length; index += 1) {
    if (result.rows[index]!.id !== events[index]!.id) return undefined;
  }
  const last = result.rows[result.rows.length - 1]!;
  return { kind: 'appended', nextExpectedRevision: BigInt(last.revision), lastPosition: BigInt(last.position) };
};

/**
 * One append, inside a transaction the caller opened and commits. It first locks the log head row,
 * which serializes appends across every engine on the database: positions are handed out and become
 * visible in commit order, so a reader paging by position never passes an event still being written.
 * Returns the result and whether there is anything to commit.
 */
export const appendInTransaction = async (
  client: PoolClient,
  stream: string,
  events: readonly EventToAppend[],
  options: AppendOptions,
): Promise<{ readonly result: AppendResult; readonly wrote: boolean }> => {
  const head = await client.query<{ position: string }>('SELECT position FROM raes_log_head WHERE id = 1 FOR UPDATE');
  const headPosition = BigInt(head.rows[0]!.position);
  const current = await currentRevision(client, stream);
  const reappendStart = reappendStartRevision(options.expectedRevision, current, events.length);
  if (reappendStart !== undefined) {
    const already = await alreadyAppended(client, stream, events, reappendStart);
    if (already !== undefined) return { result: already, wrote: false };
  }
  if (!satisfiesExpectedRevision(options.expectedRevision, current)) {
    return {
      result: { kind: 'version_conflict', stream, expected: options.expectedRevision, actual: current },
      wrote: false,
    };
  }
  if (events.length === 0) {
    return {
      result: { kind: 'appended', nextExpectedRevision: current === 'no_stream' ? -1n : current, lastPosition: headPosition },
      wrote: false,
    };
  }
  const firstRevision = current === 'no_stream' ? 0n : current + 1n;
  const positions: string[] = [];
  const revisions: string[] = [];
  const ids: string[] = [];
  const types: string[] = [];
  const data: string[] = [];
  const metadata: (string | null)[] = [];
  for (let index = 0; index < events.length; index += 1) {
    const event = events[index]!;
    positions.push((headPosition + 1n + BigInt(index)).toString());
    revisions.push((firstRevision + BigInt(index)).toString());
    ids.push(event.id);
    types.push(event.type);
    data.push(event.dataJson ?? JSON.stringify(event.data));
    metadata.push(event.metadata === undefined ? null : JSON.stringify(event.metadata));
  }
  await client.query(
    'INSERT INTO raes_events (position, stream, revision, id, type, data, metadata) ' +
      'SELECT p, $2, r, i, t, d, m FROM unnest($1::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[]) ' +
      'AS appended(p, r, i, t, d, m)',
    [positions, stream, revisions, ids, types, data, metadata],
  );
  const lastPosition = headPosition + BigInt(events.length);
  await client.query('UPDATE raes_log_head SET position = $1 WHERE id = 1', [lastPosition.toString()]);
  // Delivered to listeners only when the transaction commits.
  await client.query('SELECT pg_notify($1, $2)', [APPENDED_CHANNEL, lastPosition.toString()]);
  return {
    result: { kind: 'appended', nextExpectedRevision: firstRevision + BigInt(events.length - 1), lastPosition },
    wrote: true,
  };
};
