import type { EventStore, StorageFailure } from '../../domain/ports/event-store';
import { linkOf } from '../../domain/integrity/chain';
import { ROLLING_START, SEAL_EVENT_TYPE, SEAL_STREAM, asSeal, rollOn, sealData } from '../../domain/integrity/seal';

/**
 * Writes the seals of docs/integrity.md: reads back, in position order, the events stored since the
 * last seal, rolls their link digests on, and appends a HistorySealed event through the chain. It
 * reads back rather than remembering what it appended because only the store knows the global order
 * (and the positions other writers took in between).
 */

type SealState = {
  /** The position the last seal covers through; undefined before the first seal. */
  readonly through: bigint | undefined;
  readonly count: number;
  readonly rolling: string;
  /** The seal stream's last revision, the expected revision of the next seal. */
  readonly revision: bigint | 'no_stream';
};

const PAGE = 1000;

export type Sealed = { readonly kind: 'sealed' | 'nothing_new' } | StorageFailure;

export class HistorySealer {
  private state: SealState | undefined;

  /** `store` is the chained store: the seal itself is a linked event of the seal stream. */
  constructor(private readonly store: EventStore) {}

  async seal(): Promise<Sealed> {
    // Two rounds: another engine on the same store may have sealed since this one last looked.
    for (let round = 0; round < 2; round += 1) {
      const state = this.state ?? (await this.loadState());
      if ('kind' in state) return state;
      this.state = state;
      let { through, count, rolling } = state;
      for (;;) {
        const read = await this.store.readAll({ ...(through === undefined ? {} : { after: through }), maxCount: PAGE });
        if (read.kind === 'storage_failure') return read;
        for (const event of read.events) {
          const link = linkOf(event.metadata);
          if (link === undefined) continue;
          rolling = rollOn(rolling, link.digest);
          count += 1;
          through = event.position;
        }
        if (read.events.length < PAGE) break;
      }
      if (through === undefined || through === state.through) return { kind: 'nothing_new' };
      const data = sealData(through, count, rolling);
      const appended = await this.store.append(SEAL_STREAM, [{ id: `history-sealed-${through}`, type: SEAL_EVENT_TYPE, data }], { expectedRevision: state.revision });
      if (appended.kind === 'appended') {
        this.state = { through, count, rolling, revision: appended.nextExpectedRevision };
        return { kind: 'sealed' };
      }
      this.state = undefined;
      if (appended.kind === 'storage_failure') return appended;
    }
    return { kind: 'nothing_new' };
  }

  /** The last seal of the store, read once per process: where the next seal continues from. */
  private async loadState(): Promise<SealState | StorageFailure> {
    let last: { readonly revision: bigint; readonly data: unknown } | undefined;
    for (;;) {
      const read = await this.store.readStream(SEAL_STREAM, { fromRevision: last === undefined ? 0n : last.revision + 1n, maxCount: PAGE });
      if (read.kind === 'storage_failure') return read;
      const end = read.events[read.events.length - 1];
      if (end !== undefined) last = { revision: end.revision, data: end.data };
      if (read.events.length < PAGE) break;
    }
    if (last === undefined) return { through: undefined, count: 0, rolling: ROLLING_START, revision: 'no_stream' };
    const seal = asSeal(last.data as never);
    // A damaged last seal is audit's to report; sealing goes on from the start of the order.
    if (seal === undefined) return { through: undefined, count: 0, rolling: ROLLING_START, revision: last.revision };
    return { through: BigInt(seal.through_position), count: seal.event_count, rolling: seal.rolling_digest, revision: last.revision };
  }
}
