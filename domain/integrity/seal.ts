import * as t from 'io-ts';
import { isRight } from 'fp-ts/Either';
import type { JsonValue } from '../ports/event-store';
import { createHash, type Hash } from 'node:crypto';
import { sha256Hex, type ChainVersion } from './chain';

/**
 * Seals link the global order (docs/integrity.md): a running digest over every chained event's link
 * digest in position order, written from time to time to the seal stream. Removing a whole stream,
 * or reordering events of several streams, leaves every stream chain that remains intact but changes
 * the running digest of every seal that covered them.
 *
 * The rule follows the seal's own link version: a version-1 seal rolls one digest at a time (a hash
 * per event), a version-2 seal digests the link digests it covers in one text (a hash per seal).
 */

export const SEAL_STREAM = 'integrity-seals';
export const SEAL_EVENT_TYPE = 'HistorySealed';

/** The running digest before any event. */
export const ROLLING_START = '';

/** Version 1: the running digest after one more linked event. */
export const rollOn = (rolling: string, linkDigest: string): string => sha256Hex(`${rolling}\n${linkDigest}`);

/**
 * The running digest a seal of `version` states, from the previous seal's (or ROLLING_START) and the
 * link digests of the linked events it covers after it, added in position order. Version 2 hashes the
 * text `rolling + "\n" + digest1 + "\n" + digest2 ...` in chunks, so a seal over a long history holds
 * little of it at a time.
 */
export class SealDigest {
  private rolling: string;
  private readonly hasher: Hash | undefined;
  private chunk = '';
  private counted = 0;

  constructor(private readonly version: ChainVersion, rolling: string) {
    this.rolling = rolling;
    this.hasher = version === 1 ? undefined : createHash('sha256');
    if (version !== 1) this.chunk = rolling;
  }

  add(linkDigest: string): void {
    this.counted += 1;
    if (this.version === 1) {
      this.rolling = rollOn(this.rolling, linkDigest);
      return;
    }
    this.chunk += `\n${linkDigest}`;
    if (this.chunk.length >= CHUNK_CHARS) {
      this.hasher!.update(this.chunk, 'utf8');
      this.chunk = '';
    }
  }

  /** How many digests were added. */
  get count(): number {
    return this.counted;
  }

  /** The running digest; call once, after the last add. */
  digest(): string {
    if (this.version === 1) return this.rolling;
    return this.hasher!.update(this.chunk, 'utf8').digest('base64url');
  }
}

const CHUNK_CHARS = 64 * 1024;

/** The running digest of a seal of `version` over `linkDigests` after `rolling`, in one call. */
export const sealRolling = (version: ChainVersion, rolling: string, linkDigests: readonly string[]): string => {
  const sealDigest = new SealDigest(version, rolling);
  for (let index = 0; index < linkDigests.length; index += 1) sealDigest.add(linkDigests[index]!);
  return sealDigest.digest();
};

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
