import type { EventStore, StorageFailure } from '../../domain/ports/event-store';
import { IntegrityVerifier, type IntegrityReport } from '../../domain/integrity/verify';
import { SchedulerCheckpointCheck } from '../../domain/application/scheduler-checkpoint-check';

/** Reads the whole store in position order, a page at a time, through the integrity check of docs/integrity.md and the scheduler checkpoints'. */

const PAGE = 2000;

/** The audit's checks of a history read in position order: the chains and seals, and the scheduler checkpoints. */
export const historyVerifier = (store: EventStore): IntegrityVerifier =>
  new IntegrityVerifier(store.gaplessPositions === true, [new SchedulerCheckpointCheck()]);

export const auditIntegrity = async (store: EventStore): Promise<IntegrityReport | StorageFailure> => {
  const verifier = historyVerifier(store);
  const verified = await verifyRange(store, verifier);
  return verified.kind === 'storage_failure' ? verified : verifier.report();
};

export type RangeVerified = { readonly kind: 'verified'; readonly last: bigint | undefined } | StorageFailure;

/**
 * Feeds `verifier` the store's events after position `after` (from the first when undefined) through
 * position `through` (to the last when undefined), in position order; answers the last position fed.
 */
export const verifyRange = async (store: EventStore, verifier: IntegrityVerifier, after?: bigint, through?: bigint, page: number = PAGE): Promise<RangeVerified> => {
  let last = after;
  for (;;) {
    const read = await store.readAll({ ...(last === undefined ? {} : { after: last }), maxCount: page });
    if (read.kind === 'storage_failure') return read;
    for (const event of read.events) {
      if (through !== undefined && event.position > through) return { kind: 'verified', last };
      verifier.add(event);
      last = event.position;
    }
    if (read.events.length < page || (through !== undefined && last !== undefined && last >= through)) return { kind: 'verified', last };
  }
};

/** The integrity part of the audit, for a person: what was checked, then the notes. */
const counted = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

export const formatIntegrity = (report: IntegrityReport): string => {
  let text = `\nHistory integrity: ${report.chained_events} of ${counted(report.events, 'event')} chained in ${counted(report.streams, 'stream')}, ${counted(report.seals, 'seal')}\n`;
  if (report.unchained_prefix > 0) {
    text += `  note: the first ${report.unchained_prefix} events carry no chain link (written before chaining); the chain starts after them\n`;
  }
  if (report.unsealed_events > 0) {
    text += `  note: the last ${report.unsealed_events} chained events are not covered by a seal yet (the next writer seals them)\n`;
  }
  return text;
};
