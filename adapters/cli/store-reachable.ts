import type { Workspace } from './workspace';

/**
 * Why a server store cannot be used, found before an engine starts on it (so the user reads one
 * sentence, not a failed recovery); undefined when it answers. Local stores answer by being opened.
 */
export const unreachableStore = async (workspace: Workspace): Promise<string | undefined> => {
  if (workspace.kind !== 'postgres') return undefined;
  const probe = await workspace.store.readAll({ maxCount: 1 });
  return probe.kind === 'storage_failure' ? probe.reason : undefined;
};
