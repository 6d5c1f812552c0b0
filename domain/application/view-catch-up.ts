import type { OpenInvocationsIndex } from '../ports/open-invocations';
import type { RuntimeProgress } from './progress';

/**
 * Keeps the view's lag small; a failure here only delays the view (recovery re-checks in-flight
 * attempts, and folds the scheduler streams instead of trusting their snapshots). True when caught up.
 */
export const catchUpView = async (
  openInvocations: OpenInvocationsIndex | undefined,
  progress: (progress: RuntimeProgress) => void,
): Promise<boolean> => {
  try {
    await openInvocations?.catchUp();
    return true;
  } catch (error) {
    progress({ kind: 'storage_failure', reason: error instanceof Error ? error.message : String(error) });
    return false;
  }
};
