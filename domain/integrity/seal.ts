import * as t from 'io-ts';
import { isRight } from 'fp-ts/Either';
import type { JsonValue } from '../ports/event-store';
import { sha256Hex } from './chain';

/**
 * Seals link the global order (docs/integrity.md): a running digest over every chained event's link
 * digest in position order, written from time to time to the seal stream. Removing a whole stream,
 * or reordering events of several streams, leaves every stream chain that remains intact but changes
 * the running digest of every seal that covered them.
 */

export const SEAL_STREAM = 'integrity-seals';
export const SEAL_EVENT_TYPE = 'HistorySealed';

/** The running digest before any event. */
export const ROLLING_START = '';

export const rollOn = (rolling: string, linkDigest: string): string => sha256Hex(`${rolling}\n${linkDigest}`);

const DecimalPosition = new t.Type<string, string, unknown>(
  'a position as a decimal string',
  (input): input is string => typeof input === 'string' && /^(0|[1-9]\d*)$/.test(input),
  (input, context) => (typeof input === 'string' && /^(0|[1-9]\d*)$/.test(input) ? t.success(input) : t.failure(input, context)),
  t.identity,
);

const Count = new t.Type<number, number, unknown>(
  'a count (a whole number, 0 or more)',
  (input): input is number => typeof input === 'number' && Number.isSafeInteger(input) && input >= 0,
  (input, context) => (typeof input === 'number' && Number.isSafeInteger(input) && input >= 0 ? t.success(input) : t.failure(input, context)),
  t.identity,
);

/** What a seal event's data holds: the running digest through a position, and how many linked events it covers. */
export const HistorySealedCodec = t.type({
  type: t.literal(SEAL_EVENT_TYPE),
  /** The position of the last event covered, as a decimal string (positions outgrow JSON numbers). */
  through_position: DecimalPosition,
  event_count: Count,
  rolling_digest: t.string,
});
export type HistorySealed = t.TypeOf<typeof HistorySealedCodec>;

export const sealData = (throughPosition: bigint, eventCount: number, rollingDigest: string): HistorySealed => ({
  type: SEAL_EVENT_TYPE,
  through_position: throughPosition.toString(),
  event_count: eventCount,
  rolling_digest: rollingDigest,
});

export const asSeal = (data: JsonValue): HistorySealed | undefined => {
  const decoded = HistorySealedCodec.decode(data);
  return isRight(decoded) ? decoded.right : undefined;
};
