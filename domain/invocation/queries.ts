import type { InvocationState, ToolActionRecord } from './state';

/** Pure reads the port and the operators use to build their replies. */

export const isInvocationOpened = (state: InvocationState): boolean => state.status === 'opened';

export const isInvocationActive = (state: InvocationState): boolean =>
  state.status === 'opened' && state.lifecycle.status === 'active';

export const isInvocationClosed = (state: InvocationState): boolean =>
  state.status === 'opened' && state.lifecycle.status === 'closed';

export const toolAction = (state: InvocationState, actionInstanceId: string): ToolActionRecord | undefined => {
  if (state.status !== 'opened') return undefined;
  const position = state.positionByActionId.get(actionInstanceId);
  return position === undefined ? undefined : state.toolActions[position];
};

/** Every admitted tool action, in admission order. */
export const toolActions = (state: InvocationState): readonly ToolActionRecord[] =>
  state.status === 'opened' ? state.toolActions : [];

export const admittedCount = (state: InvocationState): number =>
  state.status === 'opened' ? state.toolActions.length : 0;

/** Admitted and not yet settled. */
export const openCount = (state: InvocationState): number => (state.status === 'opened' ? state.openCount : 0);

/** True while an indeterminate action is unresolved: no further invocation may run for the participant. */
export const schedulerMustStop = (state: InvocationState): boolean =>
  state.status === 'opened' && state.unresolvedIndeterminateCount > 0;

/** Indeterminate actions still waiting for an operator's resolution. */
export const unresolvedIndeterminateActions = (state: InvocationState): readonly ToolActionRecord[] =>
  toolActions(state).filter(
    (record) => record.phase === 'settled' && record.settlement.kind === 'indeterminate' && record.resolution === null,
  );
