import type { JsonObject, JsonValue, RecordedEvent } from '../../../domain/ports/event-store';
import { parseStored } from '../../../domain/ports/unreadable-event';

/** A row of raes_events as pg returns it: bigint columns come as decimal text. */
export type EventRow = {
  readonly position: string;
  readonly stream: string;
  readonly revision: string;
  readonly id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string | null;
  readonly recorded_at: Date;
};

export const EVENT_COLUMNS = 'position, stream, revision, id, type, data, metadata, recorded_at';

export const recordedEventOf = (row: EventRow): RecordedEvent => {
  const place = { position: BigInt(row.position), stream: row.stream, revision: BigInt(row.revision) };
  return {
    id: row.id,
    type: row.type,
    data: parseStored<JsonValue>(row.data, 'data', place),
    metadata: row.metadata === null ? undefined : parseStored<JsonObject>(row.metadata, 'metadata', place),
    ...place,
    recordedAt: row.recorded_at,
    dataJson: row.data,
  };
};
