import type { RecordedEvent } from '../ports/event-store';
import { canonicalJson, jsonString } from './canonical-json';
import { UnreadableEvent } from '../ports/unreadable-event';
import { dataDigest, linkDigest, linkDigestOfTexts, linkOf, previousDigestText, type ChainVersion } from './chain';
import { ROLLING_START, SEAL_EVENT_TYPE, SEAL_STREAM, asSeal, sealRolling } from './seal';

/**
 * The check of docs/integrity.md over a history read in position order: each stream's chain (every
 * linked event matches its own link and links to the event before it in its stream) and each seal
 * (its running digest and count match the linked events up to the position it covers). Fed one event
 * at a time, so a store of any size is checked in one pass; pure.
 */

export type IntegrityFindingCode =
  | 'chain_digest_mismatch'
  | 'chain_link_broken'
  | 'revision_gap'
  | 'revision_out_of_order'
  | 'link_missing'
  | 'event_unreadable'
  | 'position_gap'
  | 'seal_malformed'
  | 'seal_out_of_order'
  | 'seal_mismatch'
  | 'checkpoint_mismatch';

export interface IntegrityFinding {
  readonly code: IntegrityFindingCode;
  /** The event where the history breaks (for a seal finding, the seal), as a decimal string. */
  readonly position: string;
  readonly stream: string;
  readonly revision: string;
  readonly message: string;
}

export interface IntegrityReport {
  readonly events: number;
  readonly chained_events: number;
  /** Events without a link before the first linked one: a store written before chaining (a note, not a finding). */
  readonly unchained_prefix: number;
  readonly streams: number;
  readonly seals: number;
  /** Linked events after the last seal's position, seals apart: not covered by a seal yet. */
  readonly unsealed_events: number;
  readonly findings: readonly IntegrityFinding[];
}

export type VerifiedEvent = Pick<RecordedEvent, 'stream' | 'revision' | 'position' | 'type' | 'data' | 'metadata' | 'dataJson'>;

/**
 * A check of the history beside the chain's, fed the same events in the same order: what the history
 * holds must also agree with itself (the audit adds the scheduler checkpoints'). Not part of the rule a
 * third party implements (docs/integrity.md). An event whose data cannot be read is left to the chain's check.
 */
export interface HistoryCheck {
  check(event: VerifiedEvent): { readonly code: IntegrityFindingCode; readonly message: string } | undefined;
}

/**
 * A stream's last event as the check saw it: its revision, and its link digest (null when it carried
 * none, undefined when its metadata could not be read: the next event's link is then not judged by it).
 * Updated in place. `plainName`: the stream's name is its own JSON text between quotes (no character
 * to escape), so that the text every link digest of the stream contains is written without a check.
 */
type StreamHead = { revision: bigint; digest: string | null | undefined; readonly plainName: boolean };

const UNREADABLE = Symbol('unreadable');

const placeOf = (event: VerifiedEvent): string => `position ${event.position} (stream '${event.stream}', revision ${event.revision})`;

export class IntegrityVerifier {
  private readonly heads = new Map<string, StreamHead>();
  private readonly findings: IntegrityFinding[] = [];
  private events = 0;
  private chained = 0;
  private unchainedPrefix = 0;
  private seals = 0;
  /** The running digest and count through the last seal's position. */
  private sealedRolling = ROLLING_START;
  private sealedCount = 0;
  private sealedThrough: bigint | undefined;
  /** Linked events after the last seal's position, in order: the next seal covers a prefix of them. */
  private pending: { readonly position: bigint; readonly digest: string; readonly seal: boolean }[] = [];
  /** The position of the last event added (0 before the first: a gapless store numbers from 1). */
  private lastPosition = 0n;

  /** `gaplessPositions`: the history comes from a store that numbers its events without gaps (EventStore.gaplessPositions). */
  constructor(
    private readonly gaplessPositions = false,
    private readonly checks: readonly HistoryCheck[] = [],
  ) {}

  add(event: VerifiedEvent): void {
    this.checkChain(event);
    for (const check of this.checks) {
      let found: ReturnType<HistoryCheck['check']>;
      try {
        found = check.check(event);
      } catch (error) {
        if (error instanceof UnreadableEvent) continue;
        throw error;
      }
      if (found !== undefined) this.find(found.code, event, found.message);
    }
  }

  private checkChain(event: VerifiedEvent): void {
    this.events += 1;
    if (this.gaplessPositions && event.position > this.lastPosition + 1n) {
      const missing = event.position - this.lastPosition - 1n;
      const where = this.lastPosition === 0n ? 'is the first' : `follows position ${this.lastPosition}`;
      this.find('position_gap', event, `the event at ${placeOf(event)} ${where}, and the store numbers its events without gaps: ${missing === 1n ? 'the event before it was removed' : `the ${missing} events before it were removed`}`);
    }
    this.lastPosition = event.position;
    const head = this.heads.get(event.stream);
    const expectedRevision = head === undefined ? 0n : head.revision + 1n;
    let broken = false;
    if (event.revision > expectedRevision) {
      const missing = event.revision - expectedRevision;
      this.find('revision_gap', event, `the event at ${placeOf(event)} follows revision ${expectedRevision - 1n} of its stream: ${missing === 1n ? 'the event before it was removed' : `${missing} events before it were removed`}`);
      broken = true;
    } else if (event.revision < expectedRevision) {
      this.find('revision_out_of_order', event, `the event at ${placeOf(event)} comes after revision ${expectedRevision - 1n} of its stream: events of the stream were reordered or copied`);
      broken = true;
    }
    // A stream's first event links to nothing; after an event whose metadata could not be read, to what is not known.
    const expectedPrevious = head === undefined ? null : head.digest;
    const link = this.readable(event, () => linkOf(event.metadata));
    const streamHead = head ?? { revision: event.revision, digest: undefined, plainName: jsonString(event.stream) === `"${event.stream}"` };
    if (head === undefined) this.heads.set(event.stream, streamHead);
    streamHead.revision = event.revision;
    if (link === UNREADABLE) {
      streamHead.digest = undefined;
      return;
    }
    streamHead.digest = link?.digest ?? null;
    if (link === undefined) {
      if (this.chained === 0) this.unchainedPrefix += 1;
      else if (!broken) this.find('link_missing', event, `the event at ${placeOf(event)} carries no chain link, yet the history before it is chained: it was inserted, or its link removed, after it was written`);
      return;
    }
    this.chained += 1;
    // The text the store holds, digested as it is: the engine stores the canonical JSON its link was
    // taken over, and an equal digest proves the text is that one. Any other text (a store that writes
    // JSON its own way) is canonicalised and digested again before the link is judged.
    const asStored =
      !broken &&
      link.v === 2 &&
      event.dataJson !== undefined &&
      linkDigestOfTexts(previousDigestText(link.previous), streamHead.plainName ? `"${event.stream}"` : jsonString(event.stream), Number(event.revision), `"${dataDigest(event.type, event.dataJson)}"`) === link.digest;
    const data = broken ? undefined : asStored ? event.dataJson : this.readable(event, () => canonicalJson(event.data));
    if (data !== undefined && data !== UNREADABLE) {
      const digest = asStored ? link.digest : linkDigest(link.v, link.previous, event.stream, Number(event.revision), event.type, data);
      if (digest !== link.digest) {
        this.find('chain_digest_mismatch', event, `the event at ${placeOf(event)}, type '${event.type}', does not match its chain link: its data, type or place changed after it was written`);
      } else if (expectedPrevious !== undefined && link.previous !== expectedPrevious) {
        this.find('chain_link_broken', event, `the event at ${placeOf(event)} links to another predecessor than the event before it in its stream: that event was changed, replaced or removed`);
      }
    }
    const seal = event.stream === SEAL_STREAM && event.type === SEAL_EVENT_TYPE;
    if (seal && data !== UNREADABLE) this.readable(event, () => this.checkSeal(event, link.v));
    this.pending.push({ position: event.position, digest: link.digest, seal });
  }

  report(): IntegrityReport {
    return {
      events: this.events,
      chained_events: this.chained,
      unchained_prefix: this.unchainedPrefix,
      streams: this.heads.size,
      seals: this.seals,
      unsealed_events: this.pending.filter((entry) => !entry.seal).length,
      findings: this.findings,
    };
  }

  /** `version`: the seal's own link version, which names the rule of its running digest. */
  private checkSeal(event: VerifiedEvent, version: ChainVersion): void {
    const seal = asSeal(event.data);
    if (seal === undefined) {
      this.find('seal_malformed', event, `the seal at ${placeOf(event)} is not a HistorySealed event (through_position, event_count, rolling_digest): it was changed`);
      return;
    }
    this.seals += 1;
    const through = BigInt(seal.through_position);
    if (through >= event.position || (this.sealedThrough !== undefined && through < this.sealedThrough)) {
      this.find('seal_out_of_order', event, `the seal at ${placeOf(event)} covers through position ${through}, not between the previous seal's position and its own: seals were reordered`);
      return;
    }
    const digests: string[] = [];
    let covered = 0;
    while (covered < this.pending.length && this.pending[covered]!.position <= through) {
      digests.push(this.pending[covered]!.digest);
      covered += 1;
    }
    const rolling = sealRolling(version, this.sealedRolling, digests);
    const count = this.sealedCount + covered;
    if (rolling !== seal.rolling_digest || count !== seal.event_count) {
      const from = this.sealedThrough === undefined ? 'the start' : `position ${this.sealedThrough}`;
      const difference = count === seal.event_count ? `the same number of linked events (${count}) in another order or with other links` : `${count} linked events where it counted ${seal.event_count}`;
      this.find('seal_mismatch', event, `the seal at ${placeOf(event)} does not match the history it covers: between ${from} and position ${through} the store holds ${difference}, so events or whole streams were removed, inserted or reordered there`);
    }
    // Each seal is judged on its own interval: a broken interval does not break every later seal.
    this.sealedRolling = seal.rolling_digest;
    this.sealedCount = seal.event_count;
    this.sealedThrough = through;
    this.pending = this.pending.slice(covered);
  }

  /** What `read` reads from the event, or UNREADABLE (and a finding) when its data or metadata is not JSON. */
  private readable<T>(event: VerifiedEvent, read: () => T): T | typeof UNREADABLE {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof UnreadableEvent)) throw error;
      this.find('event_unreadable', event, `the event at ${placeOf(event)} cannot be read: its ${error.part} is not JSON, so it was changed after it was written`);
      return UNREADABLE;
    }
  }

  private find(code: IntegrityFindingCode, event: VerifiedEvent, message: string): void {
    this.findings.push({ code, position: event.position.toString(), stream: event.stream, revision: event.revision.toString(), message });
  }
}

/** The check over a whole history held in memory, in position order (from a gapless store: see IntegrityVerifier). */
export const verifyIntegrity = (events: Iterable<VerifiedEvent>, gaplessPositions = false): IntegrityReport => {
  const verifier = new IntegrityVerifier(gaplessPositions);
  for (const event of events) verifier.add(event);
  return verifier.report();
};
