import type { AttemptOutcome } from '../scheduler';
import { invocationAggregate, interruptedInvocationAggregate } from './aggregates';
import { attemptOutcomeOf, finishAttempt, indeterminateIdsOf } from './attempts';
import type { OpenInvocationEntry, OpenInvocationsIndex } from '../ports/open-invocations';
import type { PolicyParticipant } from './policy-participants';
import { reportToolProgress } from './progress';
import { must, type RuntimeContext } from './runtime-context';
import { catchUpView } from './view-catch-up';

/**
 * Recovers up to this many invocations at a time: their appends share group commits (one fsync for
 * many instead of one each), and while the writer commits some the next ones are decided. Commands on
 * one scheduler still run one after another.
 */
const RECOVERY_WINDOW = 512;

/** Runs `recover` over `items`, at most RECOVERY_WINDOW at once, starting the next as each ends. */
const recoverConcurrently = async <T>(items: readonly T[], recover: (item: T) => Promise<void>): Promise<void> => {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await recover(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(RECOVERY_WINDOW, items.length) }, lane));
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
  // The views first: the scheduler snapshots are then current to the end of the log. A blank view
  // (lost, or new) would replay the whole history first: the streams say what recovery needs sooner.
  const blank = openInvocations?.isBlank?.() === true;
  const caughtUp = openInvocations !== undefined && !blank && (await catchUpView(openInvocations, context.progress));
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
    const seen = new Set<string>();
    // The view lists every episode's open invocations: another episode's are never touched here.
    const episodeId = context.options.episodeId;
    const listed = openInvocations
      .listOpen()
      .filter((row) => row.episode_id === episodeId && !seen.has(row.invocation_action_instance_id) && (seen.add(row.invocation_action_instance_id), true));
    await recoverConcurrently(listed, (row) => recoverListed(context, row, owners.get(row.invocation_action_instance_id)));
  }
  // Attempts still in flight: interrupted before their invocation opened, after it closed, or not yet
  // in the open-invocations view.
  const stillInFlight: string[] = [];
  for (const entry of schedulers.values()) {
    for (const actionInstanceId of entry.scheduler.state.inFlight.values()) stillInFlight.push(actionInstanceId);
  }
  await recoverConcurrently(stillInFlight, (invocationId) => recoverInvocation(context, invocationId, owners.get(invocationId)));
};

/**
 * Settles and closes an invocation the open-invocations view lists as open, deciding from the view's
 * fold of it (or, without one, from its stream folded as recovery reads it); counts its attempt. A view
 * behind the stream is safe: the append expects the fold's revision, so it re-reads from there and
 * decides again. Anything else (the stream says it already closed) takes the general path.
 */
const recoverListed = async (context: RuntimeContext, row: OpenInvocationEntry, owner: PolicyParticipant | undefined): Promise<void> => {
  const invocationId = row.invocation_action_instance_id;
  const aggregate = interruptedInvocationAggregate(context.options.store, context.options.episodeId, invocationId);
  const restored = row.recovery !== undefined && row.revision !== undefined && aggregate.restore(row.recovery, row.revision);
  if (!restored) await must(aggregate.load(), `reading ${aggregate.stream}`);
  if (aggregate.state.status !== 'open') return recoverInvocation(context, invocationId, owner);
  const recovered = await aggregate.handle({ type: 'RecoverInvocation', at: context.now() });
  if (recovered.kind === 'unavailable') throw new Error(`recovering ${invocationId}: ${recovered.reason}`);
  if (recovered.answer.kind === 'refused') return recoverInvocation(context, invocationId, owner);
  reportToolProgress(recovered.events, context.options.onProgress);
  const state = recovered.state;
  // A recovered invocation closed as if it threw: its attempt is consumed (attemptOutcomeOf).
  const indeterminate = state.status === 'unopened' ? [] : state.unresolvedIndeterminate;
  await finishAttempts(context, owner, invocationId, 'consumed', indeterminate);
};

/**
 * Recovery of exactly these schedulers (the participants an engine took over from one that died): every
 * attempt they have in flight has its invocation settled and closed, and is counted. Another engine's
 * invocations are never touched: only the in-flight attempts of the given schedulers are read.
 */
export const recoverSchedulers = async (context: RuntimeContext, entries: readonly PolicyParticipant[]): Promise<void> => {
  const owned: Array<readonly [string, PolicyParticipant]> = [];
  for (const entry of entries) for (const actionInstanceId of entry.scheduler.state.inFlight.values()) owned.push([actionInstanceId, entry]);
  await recoverConcurrently(owned, ([invocationId, owner]) => recoverInvocation(context, invocationId, owner));
};

/** Settles and closes an interrupted invocation (if open) and counts its attempt (if in flight under `owner`). */
const recoverInvocation = async (context: RuntimeContext, invocationId: string, owner: PolicyParticipant | undefined): Promise<void> => {
  const aggregate = invocationAggregate(context.options.store, context.options.episodeId, invocationId);
  await must(aggregate.load(), `reading ${aggregate.stream}`);
  if (aggregate.state.status === 'opened' && aggregate.state.lifecycle.status !== 'closed') {
    const recovered = await aggregate.handle({ type: 'RecoverInvocation', at: context.now() });
    if (recovered.kind === 'unavailable') throw new Error(`recovering ${invocationId}: ${recovered.reason}`);
    if (recovered.kind === 'decided') reportToolProgress(recovered.events, context.options.onProgress);
  }
  const state = aggregate.state;
  await finishAttempts(context, owner, invocationId, attemptOutcomeOf(state), indeterminateIdsOf(state));
};

/** Counts every attempt `owner` has in flight for the invocation. */
const finishAttempts = async (
  context: RuntimeContext,
  owner: PolicyParticipant | undefined,
  invocationId: string,
  outcome: AttemptOutcome,
  indeterminate: readonly string[],
): Promise<void> => {
  if (owner === undefined) return;
  for (const [attempt, actionInstanceId] of [...owner.scheduler.state.inFlight]) {
    if (actionInstanceId !== invocationId) continue;
    await finishAttempt(context, owner, attempt, invocationId, outcome, indeterminate, true);
  }
};
