import type { JsonObject, JsonValue, RecordedEvent } from '../../../domain/ports/event-store';

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

export const recordedEventOf = (row: EventRow): RecordedEvent => ({
  id: row.id,
  type: row.type,
  data: JSON.parse(row.data) as JsonValue,
  metadata: row.metadata === null ? undefined : (JSON.parse(row.metadata) as JsonObject),
  stream: row.stream,
  revision: BigInt(row.revision),
  position: BigInt(row.position),
  recordedAt: row.recorded_at,
  dataJson: row.data,
});
