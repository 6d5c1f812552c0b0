import type { ResolvedEffect } from '../invocation';
import { invocationAggregate } from './aggregates';
import { parentOperationOf } from './operations';
import { schedulerKey, unresolvedOf } from './policy-participants';
import type { RuntimeContext } from './runtime-context';

export type OperatorResult = { readonly ok: true } | { readonly ok: false; readonly code: string; readonly message: string };

/**
 * A shared-clock reset: every policy's execution service adds 1 to its execution generation, so
 * invocations opened afterwards refuse requests that carry an older one (`stale_generation`).
 */
export const resetSharedClock = async (context: RuntimeContext): Promise<OperatorResult> => {
  for (const entry of context.schedulers.byKey.values()) {
    const reset = await entry.scheduler.handle({ type: 'ResetSharedClock', at: context.now() });
    if (reset.kind === 'unavailable') return { ok: false, code: 'ledger_unavailable', message: reset.reason };
    if (reset.answer.kind === 'refused') return { ok: false, code: reset.answer.refusal.code, message: reset.answer.refusal.message };
  }
  return { ok: true };
};

/** An operator's resolution of an indeterminate tool action; the scheduler stays stopped until restarted. */
export const resolve = async (
  context: RuntimeContext,
  actionInstanceId: string,
  effect: ResolvedEffect,
  evidenceRef: string,
): Promise<OperatorResult> => {
  const invocationId = parentOperationOf(actionInstanceId);
  if (invocationId === undefined) {
    return { ok: false, code: 'action_unknown', message: `${actionInstanceId} is not a tool action id (<invocation>:tool=<n>)` };
  }
  // A resolution stands on its evidence: one that names none is no resolution.
  if (evidenceRef.trim() === '') return { ok: false, code: 'evidence_missing', message: 'the evidence ref is blank: name the evidence the resolution rests on' };
  const aggregate = context.running.get(invocationId) ?? invocationAggregate(context.options.store, context.options.episodeId, invocationId);
  const loaded = await aggregate.load();
  if (loaded.kind === 'unavailable') return { ok: false, code: 'ledger_unavailable', message: loaded.reason };
  if (aggregate.state.status === 'unopened') {
    return { ok: false, code: 'action_unknown', message: `no invocation ${invocationId} in episode ${context.options.episodeId}: \`raes-tools audit\` lists the episode's invocations` };
  }
  const resolved = await aggregate.handle({
    type: 'ResolveIndeterminateToolAction',
    at: context.now(),
    actionInstanceId,
    effect,
    evidenceRef,
  });
  if (resolved.kind === 'unavailable') return { ok: false, code: 'ledger_unavailable', message: resolved.reason };
  if (resolved.answer.kind === 'refused') return { ok: false, code: resolved.answer.refusal.code, message: resolved.answer.refusal.message };
  const state = resolved.state;
  if (state.status !== 'opened') return { ok: false, code: 'action_unknown', message: `${invocationId} was never opened` };
  const entry = context.schedulers.byKey.get(schedulerKey(context.options.episodeId, state.portValues.execution_scope_ref, state.portValues.participant_address));
  if (entry === undefined) return { ok: true };
  const recorded = await entry.scheduler.handle({ type: 'RecordResolution', action_instance_id: actionInstanceId, at: context.now() });
  if (recorded.kind === 'unavailable') return { ok: false, code: 'ledger_unavailable', message: recorded.reason };
  if (recorded.answer.kind === 'refused') return { ok: false, code: recorded.answer.refusal.code, message: recorded.answer.refusal.message };
  return { ok: true };
};

/** Restarts a participant's stopped schedulers (every policy it takes part in) once none has an unresolved action. */
export const restartScheduler = async (context: RuntimeContext, participantAddress: string): Promise<OperatorResult> => {
  const entries = context.schedulers.byParticipant.get(participantAddress);
  if (entries === undefined) {
    return { ok: false, code: 'participant_unknown', message: `${participantAddress} has no v1 scheduler` };
  }
  const unresolved = unresolvedOf(entries);
  if (unresolved.length > 0) {
    return {
      ok: false,
      code: 'indeterminate_unresolved',
      message: `resolve ${unresolved.join(', ')} before restarting (raes-tools resolve <action id> --effect happened|absent --evidence <ref>)`,
    };
  }
  let restarted = false;
  let last: OperatorResult = { ok: false, code: 'scheduler_running', message: `no scheduler of ${participantAddress} is stopped` };
  for (const entry of entries) {
    if (entry.scheduler.state.status !== 'stopped') continue;
    const handled = await entry.scheduler.handle({ type: 'RestartScheduler', at: context.now() });
    if (handled.kind === 'unavailable') last = { ok: false, code: 'ledger_unavailable', message: handled.reason };
    else if (handled.answer.kind === 'refused') last = { ok: false, code: handled.answer.refusal.code, message: handled.answer.refusal.message };
    else restarted = true;
  }
  return restarted ? { ok: true } : last;
};
