import type { OpenInvocationEntry, OpenInvocationsIndex, SchedulerSnapshot } from '../ports/open-invocations';
import type { RuntimeProgress } from './progress';
import { catchUpView } from './view-catch-up';

/** What start-time recovery reads from the views: the open invocations and, when they can be trusted, the scheduler snapshots. */
export interface RecoveryView {
  readonly open: readonly OpenInvocationEntry[];
  /** Undefined when the views could not be had current to the end of the log: every scheduler stream is then folded. */
  readonly schedulerSnapshots: ReadonlyMap<string, SchedulerSnapshot> | undefined;
}

/**
 * The views as current as the log: their rows with the log's tail folded in memory when the index can
 * (the views catch up after recovery), else caught up first and read. A blank view (lost, or new)
 * would replay the whole history first: the scheduler streams say what recovery needs sooner. A
 * failed catch-up only delays the view: recovery folds the scheduler streams instead of trusting their
 * snapshots, and re-checks every attempt in flight.
 */
export const readRecoveryView = async (
  openInvocations: OpenInvocationsIndex | undefined,
  progress: (progress: RuntimeProgress) => void,
): Promise<RecoveryView | undefined> => {
  if (openInvocations === undefined) return undefined;
  if (openInvocations.isBlank?.() === true) return { open: openInvocations.listOpen(), schedulerSnapshots: undefined };
  const current = await openInvocations.current?.().catch(() => undefined);
  if (current !== undefined) return { open: current.open, schedulerSnapshots: current.schedulerSnapshots };
  const caughtUp = await catchUpView(openInvocations, progress);
  return { open: openInvocations.listOpen(), schedulerSnapshots: caughtUp ? openInvocations.schedulerSnapshots?.() : undefined };
};
