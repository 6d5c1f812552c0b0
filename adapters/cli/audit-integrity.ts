import type { EventStore, StorageFailure } from '../../domain/ports/event-store';
import { IntegrityVerifier, type IntegrityReport } from '../../domain/integrity/verify';
import { SchedulerCheckpointCheck } from '../../domain/application';

/** Reads the whole store in position order, a page at a time, through the integrity check of docs/integrity.md and the scheduler checkpoints'. */

const PAGE = 2000;

/** The audit's checks of a history read in position order: the chains and seals, and the scheduler checkpoints. */
export const historyVerifier = (store: EventStore): IntegrityVerifier =>
  new IntegrityVerifier(store.gaplessPositions === true, [new SchedulerCheckpointCheck()]);

export const auditIntegrity = async (store: EventStore): Promise<IntegrityReport | StorageFailure> => {
  const verifier = historyVerifier(store);
  let after: bigint | undefined;
  for (;;) {
    const read = await store.readAll({ ...(after === undefined ? {} : { after }), maxCount: PAGE });
    if (read.kind === 'storage_failure') return read;
    for (const event of read.events) verifier.add(event);
    const last = read.events[read.events.length - 1];
    if (last === undefined || read.events.length < PAGE) return verifier.report();
    after = last.position;
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
