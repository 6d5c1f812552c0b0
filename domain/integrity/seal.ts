import type { JsonValue } from '../ports/event-store';
import { sha256Hex } from './chain';

/**
 * Seals link the global order (docs/integrity.md): a running digest over every chained
 * event's link digest in position order, written from time to time to the seal stream. Removing a
 * whole stream, or events of several streams, leaves every stream chain that remains intact but
 * changes the running digest of every seal that covered them.
 */

export const SEAL_STREAM = 'integrity-seals';
export const SEAL_EVENT_TYPE = 'HistorySealed';

/** The running digest before any event. */
export const ROLLING_START = '';

export const rollOn = (rolling: string, linkDigest: string): string => sha256Hex(`${rolling}\n${linkDigest}`);

/** What a seal event's data holds: the running digest through a position, and how many events it covers. */
export interface HistorySealed {
  readonly type: typeof SEAL_EVENT_TYPE;
  /** The position of the last event covered, as a decimal string (positions outgrow JSON numbers). */
  readonly through_position: string;
  readonly event_count: number;
  readonly rolling_digest: string;
}

export const sealData = (throughPosition: bigint, eventCount: number, rollingDigest: string): HistorySealed & { readonly [key: string]: JsonValue } => ({
  type: SEAL_EVENT_TYPE,
  through_position: throughPosition.toString(),
  event_count: eventCount,
  rolling_digest: rollingDigest,
});

export const asSeal = (data: JsonValue): HistorySealed | undefined => {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const { type, through_position, event_count, rolling_digest } = data as { readonly [key: string]: JsonValue };
  if (type !== SEAL_EVENT_TYPE || typeof through_position !== 'string' || !/^\d+$/.test(through_position)) return undefined;
  if (typeof event_count !== 'number' || !Number.isSafeInteger(event_count) || event_count < 0 || typeof rolling_digest !== 'string') return undefined;
  return { type, through_position, event_count, rolling_digest };
};
