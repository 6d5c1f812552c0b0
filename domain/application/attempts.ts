import { ActionResultCodec, unresolvedIndeterminateActions, type InvocationState } from '../invocation';
import { actionContractAt } from '../scenario';
import type { AttemptOutcome, AttemptStarted } from '../scheduler';
import { runInvocation } from './invocations';
import type { OuterActionRequest, ParticipantSnapshot } from './participant-runtime';
import { unresolvedOf, type PolicyParticipant } from './policy-participants';
import type { RuntimeContext } from './runtime-context';

/** How an invocation's closure counts for its attempt. */
export const attemptOutcomeOf = (state: InvocationState): AttemptOutcome => {
  if (state.status !== 'opened' || state.lifecycle.status !== 'closed') return 'consumed';
  const closure = state.lifecycle.closure;
  if (closure.outcome !== 'returned' || state.lifecycle.recovered) return 'consumed';
  return closure.actionResult.status === 'succeeded' ? 'succeeded' : 'failed';
};

export const indeterminateIdsOf = (state: InvocationState): string[] =>
  unresolvedIndeterminateActions(state).map((record) => record.actionInstanceId);

/**
 * Starts one due attempt of a policy-participant at `tick` on its scheduler: the attempt, or undefined
 * when the scheduler refused it (stopped, exhausted, at max_in_flight) or the store did not record it.
 */
export const startAttempt = async (context: RuntimeContext, entry: PolicyParticipant, tick: number): Promise<AttemptStarted | undefined> => {
  // Checked again right before the start: a lease may have run out while the tick waited for a slot.
  if (!context.owns(entry.schedulerPolicy.participant_address) || heldByParticipant(context, entry)) return undefined;
  const started = await entry.scheduler.handle({ type: 'StartAttempt', policy: entry.schedulerPolicy, tick, at: context.now() });
  if (started.kind === 'unavailable') {
    context.progress({ kind: 'storage_failure', reason: started.reason });
    return undefined;
  }
  if (started.answer.kind === 'refused') return undefined;
  const attempt = started.events[0];
  return attempt !== undefined && attempt.type === 'AttemptStarted' ? attempt : undefined;
};

/**
 * Runs a started attempt (as an invocation when ports are attached, else as a plain admitAction) and
 * counts it.
 */
export const runStartedAttempt = async (context: RuntimeContext, entry: PolicyParticipant, attempt: AttemptStarted): Promise<void> => {
  const request = outerRequest(context, entry, attempt);
  const snapshot: ParticipantSnapshot = { clock_address: entry.schedulerPolicy.clock_address, tick: attempt.tick, attempt: attempt.attempt };
  let outcome: AttemptOutcome;
  let indeterminate: readonly string[] = [];
  if (context.registration.attachPort) {
    const ended = await runInvocation(context, entry, attempt, request, snapshot);
    // An invocation the store could not close stays in flight: recovery closes it and counts the attempt.
    if (ended.kind === 'close_unwritten') return;
    outcome = attemptOutcomeOf(ended.state);
    indeterminate = indeterminateIdsOf(ended.state);
  } else {
    outcome = await runPlain(context, request, snapshot);
  }
  await finishAttempt(context, entry, attempt.attempt, attempt.action_instance_id, outcome, indeterminate, false);
};

/**
 * docs/rules.md, failure row 5: an indeterminate tool action stops its participant, so no attempt starts under
 * any policy while one of the participant's schedulers holds an unresolved action.
 */
const heldByParticipant = (context: RuntimeContext, entry: PolicyParticipant): boolean => {
  const unresolved = unresolvedOf(context.schedulers.byParticipant.get(entry.schedulerPolicy.participant_address) ?? []);
  if (unresolved.length === 0) {
    context.held.delete(entry);
    return false;
  }
  if (!context.held.has(entry) && entry.scheduler.state.status === 'running') {
    context.held.add(entry);
    context.progress({
      kind: 'scheduler_stopped',
      participant_address: entry.schedulerPolicy.participant_address,
      reason: `indeterminate tool action ${unresolved.join(', ')} unresolved; ${entry.policy.address} waits too`,
    });
  }
  return true;
};

const outerRequest = (context: RuntimeContext, entry: PolicyParticipant, attempt: AttemptStarted): OuterActionRequest => ({
  action_instance_id: attempt.action_instance_id,
  participant_address: attempt.participant_address,
  episode_id: context.options.episodeId,
  action_contract_address: attempt.action_contract_address,
  observation_boundary_address: entry.policy.observationBoundaryAddress,
  target_addresses: actionContractAt(context.options.compiled, attempt.action_contract_address)?.targetAddresses ?? [],
  observation_point: attempt.observation_point,
  execution_scope_ref: attempt.policy_address,
  execution_generation: attempt.execution_generation,
  participant_implementation_ref: entry.policy.implementationRef,
});

/** An attempt run without a port: admitAction alone, its result decoded to count the attempt. */
const runPlain = async (context: RuntimeContext, request: OuterActionRequest, snapshot: ParticipantSnapshot): Promise<AttemptOutcome> => {
  try {
    const result = ActionResultCodec.decode(await context.options.runtime.admitAction(request, snapshot));
    if (result._tag === 'Left' || result.right.action_instance_id !== request.action_instance_id) return 'consumed';
    return result.right.status === 'succeeded' ? 'succeeded' : 'failed';
  } catch {
    return 'consumed';
  }
};

/** Counts an attempt on its scheduler and reports the invocation closed (and any scheduler it stopped). */
export const finishAttempt = async (
  context: RuntimeContext,
  entry: PolicyParticipant,
  attempt: number,
  invocationId: string,
  outcome: AttemptOutcome,
  indeterminate: readonly string[],
  recovered: boolean,
): Promise<void> => {
  const finished = await entry.scheduler.handle({
    type: 'FinishAttempt',
    policy: entry.schedulerPolicy,
    attempt,
    outcome,
    indeterminate_action_ids: indeterminate,
    at: context.now(),
  });
  if (finished.kind === 'unavailable') return context.progress({ kind: 'storage_failure', reason: finished.reason });
  context.progress({
    kind: 'invocation_closed',
    invocation_action_instance_id: invocationId,
    outcome,
    indeterminate_action_ids: indeterminate,
    recovered,
  });
  if (finished.answer.kind === 'refused') return;
  for (const event of finished.events) {
    if (event.type === 'SchedulerStopped') {
      context.progress({ kind: 'scheduler_stopped', participant_address: entry.schedulerPolicy.participant_address, reason: event.reason });
    }
  }
};
