import type { EventStore } from '../../domain/ports/event-store';
import type { IntegrityReport } from '../../domain/integrity/verify';
import { REBUILD_ADVICE } from '../../projections/participant-history';
import { auditIntegrity } from './audit-integrity';

/**
 * The views and the store disagree. When the store's own chains break, its history was changed (an
 * event deleted or edited): the views are right about what was there, a rebuild from the changed store
 * cannot bring it back, and `raes-tools audit` names where it breaks. Only when the chains hold are the
 * views at fault, and the rebuild the advice was is the repair.
 */
export const CHANGED_HISTORY_ADVICE =
  'the event store no longer holds what was recorded, so a rebuild of the views cannot repair it: restore the store from a backup';

const firstBreak = (integrity: IntegrityReport): string => {
  const first = integrity.findings[0]!;
  const more = integrity.findings.length - 1;
  return `${first.code} at position ${first.position}${more > 0 ? ` and ${more} more` : ''}`;
};

/** What the integrity findings say of a failure, for a command that prints them below its message; undefined without findings. */
export const historyChangedNote = (integrity: IntegrityReport): string | undefined =>
  integrity.findings.length === 0 ? undefined : `the event store's history was changed (${firstBreak(integrity)}, listed below); ${CHANGED_HISTORY_ADVICE}`;

/** For a command that has the integrity report at hand (audit prints its findings below the message). */
export const adviceGivenIntegrity = (advice: string, integrity: IntegrityReport): string =>
  advice !== REBUILD_ADVICE ? advice : (historyChangedNote(integrity) ?? advice);

/** What to do when the store's own checks break, read only now that something failed; undefined when they hold. */
export const changedHistoryAdvice = async (store: EventStore): Promise<string | undefined> => {
  const integrity = await auditIntegrity(store);
  if ('kind' in integrity || integrity.findings.length === 0) return undefined;
  return `the event store's history was changed (${firstBreak(integrity)}): run \`raes-tools audit\` to see where it breaks; ${CHANGED_HISTORY_ADVICE}`;
};

/** For any other command: checks the store's chains only now that something failed. */
export const adviceGivenStore = async (advice: string, store: EventStore): Promise<string> =>
  advice !== REBUILD_ADVICE ? advice : ((await changedHistoryAdvice(store)) ?? advice);
