import { invocationAggregate } from './aggregates';
import { attemptOutcomeOf, finishAttempt, indeterminateIdsOf } from './attempts';
import type { OpenInvocationsIndex } from './open-invocations-index';
import type { PolicyParticipant } from './policy-participants';
import { reportToolProgress } from './progress';
import { must, type RuntimeContext } from './runtime-context';
import { catchUpView } from './view-catch-up';

/**
 * Recovers invocations many at a time: each one's appends then share group commits (one fsync for a
 * batch instead of one each), so recovery time grows with the open invocations' events, not with their
 * number of round trips to the disk. Commands on one scheduler still run one after another.
 */
const RECOVERY_BATCH = 256;

const recoverInBatches = async (invocationIds: readonly string[], recover: (invocationId: string) => Promise<void>): Promise<void> => {
  const seen = new Set<string>();
  const unique = invocationIds.filter((id) => !seen.has(id) && (seen.add(id), true));
  for (let first = 0; first < unique.length; first += RECOVERY_BATCH) {
    await Promise.all(unique.slice(first, first + RECOVERY_BATCH).map(recover));
  }
};

/**
 * Start-time recovery, first step: restores every scheduler from its snapshot in the views (or folds its
 * stream). Returns the last tick that ran (at least `lastTick`).
 */
export const restoreSchedulers = async (
  context: RuntimeContext,
  openInvocations: OpenInvocationsIndex | undefined,
  lastTick: number,
): Promise<number> => {
  let currentTick = lastTick;
  // The views first: the scheduler snapshots are then current to the end of the log.
  const caughtUp = openInvocations !== undefined && (await catchUpView(openInvocations, context.progress));
  const snapshots = caughtUp ? openInvocations?.schedulerSnapshots?.() : undefined;
  for (const entry of context.schedulers.byKey.values()) {
    const snapshot = snapshots?.get(entry.scheduler.stream);
    if (snapshot === undefined || !entry.scheduler.restore(snapshot.state, snapshot.revision)) {
      await must(entry.scheduler.load(), `loading ${entry.scheduler.stream}`);
    }
    const schedulerTick = entry.scheduler.state.lastTick;
    if (schedulerTick !== null && schedulerTick > currentTick) currentTick = schedulerTick;
  }
  return currentTick;
};

/**
 * Start-time recovery, second step: every interrupted invocation is settled and closed, and its attempt
 * counted, before any new one; then the sweep of attempts the open-invocations view did not list.
 */
export const recoverInterrupted = async (context: RuntimeContext, openInvocations: OpenInvocationsIndex | undefined): Promise<void> => {
  const schedulers = context.schedulers.byKey;
  const owners = new Map<string, PolicyParticipant>();
  for (const entry of schedulers.values()) {
    for (const actionInstanceId of entry.scheduler.state.inFlight.values()) owners.set(actionInstanceId, entry);
  }
  if (openInvocations !== undefined) {
    await recoverInBatches(
      openInvocations.listOpen().map((row) => row.invocation_action_instance_id),
      (invocationId) => recoverInvocation(context, invocationId, owners.get(invocationId)),
    );
  }
  // Attempts still in flight: interrupted before their invocation opened, after it closed, or not yet
  // in the open-invocations view.
  const stillInFlight: string[] = [];
  for (const entry of schedulers.values()) {
    for (const actionInstanceId of entry.scheduler.state.inFlight.values()) stillInFlight.push(actionInstanceId);
  }
  await recoverInBatches(stillInFlight, (invocationId) => recoverInvocation(context, invocationId, owners.get(invocationId)));
  await catchUpView(openInvocations, context.progress);
};

/** Settles and closes an interrupted invocation (if open) and counts its attempt (if in flight under `owner`). */
const recoverInvocation = async (context: RuntimeContext, invocationId: string, owner: PolicyParticipant | undefined): Promise<void> => {
  const aggregate = invocationAggregate(context.options.store, invocationId);
  await must(aggregate.load(), `reading ${aggregate.stream}`);
  let state = aggregate.state;
  if (state.status === 'opened' && state.lifecycle.status !== 'closed') {
    const recovered = await aggregate.handle({ type: 'RecoverInvocation', at: context.now() });
    if (recovered.kind === 'unavailable') throw new Error(`recovering ${invocationId}: ${recovered.reason}`);
    if (recovered.kind === 'accepted') reportToolProgress(recovered.events, context.options.onProgress);
    state = aggregate.state;
  }
  if (owner === undefined) return;
  for (const [attempt, actionInstanceId] of [...owner.scheduler.state.inFlight]) {
    if (actionInstanceId !== invocationId) continue;
    await finishAttempt(context, owner, attempt, invocationId, attemptOutcomeOf(state), indeterminateIdsOf(state), true);
  }
};
