import type { EventStore, StorageFailure } from '../../domain/ports/event-store';
import { CHAIN_VERSION, linkOf } from '../../domain/integrity/chain';
import { ROLLING_START, SEAL_EVENT_TYPE, SEAL_STREAM, asSeal, sealData, SealDigest } from '../../domain/integrity/seal';

/**
 * Writes the seals of docs/integrity.md: digests, in position order, the link digests of the events
 * stored since the last seal after the last seal's running digest (the version-2 rule: the seal is
 * linked in CHAIN_VERSION), and appends a HistorySealed event through the chain. The digests come
 * from what this process appended when they cover every position after the last seal without a gap
 * (a run of consecutive positions leaves no room for another writer's event); otherwise, after a
 * restart, on a store with sparse positions or when another writer appended, they are read back from
 * the store, which alone knows the global order.
 */

type SealState = {
  /** The position the last seal covers through; undefined before the first seal. */
  readonly through: bigint | undefined;
  readonly count: number;
  readonly rolling: string;
  /** The seal stream's last revision, the expected revision of the next seal. */
  readonly revision: bigint | 'no_stream';
  /**
   * The position the store was read through, never before `through` (undefined only with it): the events
   * between the two carry no link (a history from before chains, or links the sealer cannot read), so the
   * next seal reads on from here.
   */
  readonly readThrough: bigint | undefined;
};

const PAGE = 1000;

export type Sealed = { readonly kind: 'sealed' | 'nothing_new' } | StorageFailure;

export class HistorySealer {
  private state: SealState | undefined;
  /** Link digests this process appended, by position, not sealed yet. */
  private readonly appended = new DigestsByPosition();

  /** `store` is the chained store: the seal itself is a linked event of the seal stream. */
  constructor(private readonly store: EventStore) {}

  /** Notes the digests of an append whose events hold consecutive positions ending at `lastPosition`. */
  noteAppended(lastPosition: bigint, digests: readonly string[]): void {
    this.appended.note(Number(lastPosition) - digests.length + 1, digests);
  }

  /**
   * `toEnd` false (the seals written every so many events): it seals through the end of this process's
   * run of digests, reading back from the store only the events before it since the last seal (after a
   * restart, what the former process left unsealed), and what follows is the next seal's; a seal
   * `toEnd` (asked for, or on close) reads the rest back too.
   */
  async seal(toEnd = true): Promise<Sealed> {
    // Two rounds: another engine on the same store may have sealed since this one last looked.
    for (let round = 0; round < 2; round += 1) {
      const state = this.state ?? (await this.loadState());
      if ('kind' in state) return state;
      this.state = state;
      let through = state.through;
      const sealDigest = new SealDigest(CHAIN_VERSION, state.rolling);
      // Where the digests are taken through: from this process's own appends when they continue from
      // here, else read back from the store up to the next position whose digest this process holds.
      // The cursor moves past events without a link too (a history from before chains), which `through` does not.
      let cursor = state.readThrough;
      for (;;) {
        if (cursor !== undefined) {
          const first = Number(cursor) + 1;
          let next = first;
          for (let digest = this.appended.take(next); digest !== undefined; digest = this.appended.take(next)) {
            sealDigest.add(digest);
            next += 1;
          }
          if (next > first) {
            through = cursor = BigInt(next - 1);
            // The seals written every so many events end with this process's run; what follows is the next seal's.
            if (!toEnd) break;
          }
        }
        const own = this.appended.lowest();
        const maxCount = own === undefined || cursor === undefined ? PAGE : Math.min(PAGE, own - Number(cursor) - 1);
        if (maxCount <= 0) break;
        const read = await this.store.readAll({ ...(cursor === undefined ? {} : { after: cursor }), maxCount });
        if (read.kind === 'storage_failure') return read;
        for (const event of read.events) {
          cursor = event.position;
          this.appended.take(Number(event.position));
          const link = linkOf(event.metadata);
          if (link === undefined) continue;
          sealDigest.add(link.digest);
          through = event.position;
        }
        if (read.events.length < maxCount) break;
      }
      if (through === undefined || through === state.through) {
        this.state = { ...state, readThrough: cursor };
        return { kind: 'nothing_new' };
      }
      const count = state.count + sealDigest.count;
      const rolling = sealDigest.digest();
      const data = sealData(through, count, rolling);
      const appended = await this.store.append(SEAL_STREAM, [{ id: `history-sealed-${through}`, type: SEAL_EVENT_TYPE, data }], { expectedRevision: state.revision });
      if (appended.kind === 'appended') {
        this.state = { through, count, rolling, revision: appended.nextExpectedRevision, readThrough: cursor };
        return { kind: 'sealed' };
      }
      this.state = undefined;
      if (appended.kind === 'storage_failure') return appended;
    }
    return { kind: 'nothing_new' };
  }

  /** The last seal of the store, read once per process: where the next seal continues from. */
  private async loadState(): Promise<SealState | StorageFailure> {
    // The seal stream's last event alone: a long history holds a seal every thousand events.
    const read = await this.store.readStreamBackwards(SEAL_STREAM, { maxCount: 1 });
    if (read.kind === 'storage_failure') return read;
    const last = read.events[0];
    if (last === undefined) return { through: undefined, count: 0, rolling: ROLLING_START, revision: 'no_stream', readThrough: undefined };
    const seal = asSeal(last.data as never);
    // A damaged last seal is audit's to report; sealing goes on from the start of the order.
    if (seal === undefined) return { through: undefined, count: 0, rolling: ROLLING_START, revision: last.revision, readThrough: undefined };
    const through = BigInt(seal.through_position);
    return { through, count: seal.event_count, rolling: seal.rolling_digest, revision: last.revision, readThrough: through };
  }
}

/**
 * Digests by position, for positions that mostly arrive in order: an array from the lowest position
 * still held, cheaper per event than a map. Taking a position drops it and every position below it.
 */
class DigestsByPosition {
  private digests: (string | undefined)[] = [];
  /** The position of `digests[0]`. */
  private base = 0;
  /** The index of the lowest position still held. */
  private start = 0;

  note(firstPosition: number, digests: readonly string[]): void {
    if (this.digests.length === 0) this.base = firstPosition;
    for (let index = 0; index < digests.length; index += 1) {
      const at = firstPosition + index - this.base;
      // Below what is held: a position already taken (read back from the store, say).
      if (at >= this.start) this.digests[at] = digests[index];
    }
  }

  /** The digest at `position`, if held; it and every position below it are forgotten. */
  take(position: number): string | undefined {
    const at = position - this.base;
    if (at < this.start) return undefined;
    if (at >= this.digests.length) {
      this.reset(position + 1);
      return undefined;
    }
    const digest = this.digests[at];
    this.start = at + 1;
    if (this.start >= this.digests.length) this.reset(position + 1);
    else if (this.start >= COMPACT_AFTER && this.start * 2 >= this.digests.length) {
      this.digests = this.digests.slice(this.start);
      this.base += this.start;
      this.start = 0;
    }
    return digest;
  }

  /** The lowest position whose digest is held; undefined when none is. */
  lowest(): number | undefined {
    for (let at = this.start; at < this.digests.length; at += 1) if (this.digests[at] !== undefined) return this.base + at;
    return undefined;
  }

  private reset(base: number): void {
    this.digests = [];
    this.base = base;
    this.start = 0;
  }
}

const COMPACT_AFTER = 1024;
