import { refusal, type Refusal } from './refusal-codes';
import type {
  AdmittedToolAction,
  DispatchedToolAction,
  InvocationState,
  OpenedInvocation,
  SettledToolAction,
  ToolActionRecord,
  UnopenedInvocation,
} from './state';

/**
 * `state_conflict`: a call that is valid in some state but not in the one it found. Both functions
 * answer the narrowed subject when it is in the expected state, so callers need no casts.
 */

/** A tool action's record narrowed to the phase a call expects it in. */
export interface ToolActionIn {
  readonly admitted: AdmittedToolAction;
  readonly dispatched: DispatchedToolAction;
  /** Settled indeterminate and not resolved yet. */
  readonly indeterminate: SettledToolAction;
}

const isIn = <P extends keyof ToolActionIn>(record: ToolActionRecord, expected: P): record is ToolActionIn[P] =>
  expected === 'indeterminate'
    ? record.phase === 'settled' && record.settlement.kind === 'indeterminate' && record.resolution === null
    : record.phase === expected;

const describe = (record: ToolActionRecord): string =>
  record.phase === 'settled'
    ? `settled ${record.settlement.kind}${record.resolution === null ? '' : ' and resolved'}`
    : record.phase;

/** The tool action in the expected state, or the conflict with what to do instead. */
export const stateConflict = <P extends keyof ToolActionIn>(
  record: ToolActionRecord,
  expected: P,
  hint: string,
): ToolActionIn[P] | Refusal =>
  isIn(record, expected)
    ? record
    : refusal('state_conflict', `tool action ${record.actionInstanceId} is ${describe(record)}: ${hint}`);

interface InvocationIn {
  readonly unopened: UnopenedInvocation;
  readonly opened: OpenedInvocation;
  /** Opened, dispatch not begun. */
  readonly inactive: OpenedInvocation;
}

const invocationIsIn = <P extends keyof InvocationIn>(state: InvocationState, expected: P): state is InvocationIn[P] =>
  expected === 'inactive'
    ? state.status === 'opened' && state.lifecycle.status === 'inactive'
    : state.status === expected;

const describeInvocation = (state: InvocationState): string =>
  state.status === 'unopened' ? 'not opened' : state.lifecycle.status;

/** The invocation in the expected lifecycle state, or the conflict. */
export const invocationStateConflict = <P extends keyof InvocationIn>(
  state: InvocationState,
  expected: P,
  hint: string,
): InvocationIn[P] | Refusal =>
  invocationIsIn(state, expected)
    ? state
    : refusal('state_conflict', `the invocation is ${describeInvocation(state)}: ${hint}`);
