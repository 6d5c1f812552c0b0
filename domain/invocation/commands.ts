import type { AdmissionContext } from './admission-context';
import type { ResolvedEffect } from './events';
import type { InvocationPortValues, OuterAction } from './port-values';

/**
 * Commands of the invocation aggregate. Every command carries `at` (an ISO-8601 timestamp): the
 * decider reads no clock. Values the harness supplies stay `unknown` until the decider decodes them.
 */

export interface OpenInvocation {
  readonly type: 'OpenInvocation';
  readonly at: string;
  readonly portValues: InvocationPortValues;
  readonly outerAction: OuterAction;
  readonly admissionContext: AdmissionContext;
}

/** Dispatch of the outer action began: the port becomes active. */
export interface ActivateInvocation {
  readonly type: 'ActivateInvocation';
  readonly at: string;
}

export interface AdmitToolAction {
  readonly type: 'AdmitToolAction';
  readonly at: string;
  readonly request: unknown;
  /** The engine's switch at this moment: rule 9 is judged when the call arrives, not when the invocation opened. */
  readonly crossingPolicyInstalled: boolean;
}

/**
 * Admission and dispatch decided as one decision, for a harness that asks for both: the events are
 * those AdmitToolAction then DispatchToolAction would give (ToolActionAdmitted, ToolActionDispatched),
 * appended together. A refused admission is refused as AdmitToolAction alone would refuse it.
 */
export interface AdmitAndDispatchToolAction {
  readonly type: 'AdmitAndDispatchToolAction';
  readonly at: string;
  readonly request: unknown;
  readonly crossingPolicyInstalled: boolean;
}

export interface DispatchToolAction {
  readonly type: 'DispatchToolAction';
  readonly at: string;
  readonly actionInstanceId: string;
}

export interface CompleteToolAction {
  readonly type: 'CompleteToolAction';
  readonly at: string;
  readonly actionInstanceId: string;
  readonly result: unknown;
}

export interface ReportToolActionUnknown {
  readonly type: 'ReportToolActionUnknown';
  readonly at: string;
  readonly actionInstanceId: string;
  readonly reason: string;
}

export interface CancelToolAction {
  readonly type: 'CancelToolAction';
  readonly at: string;
  readonly actionInstanceId: string;
}

export type InvocationCloseOutcome =
  | { readonly outcome: 'returned'; readonly result: unknown }
  | { readonly outcome: 'threw' }
  | { readonly outcome: 'invalid_result'; readonly reason: string };

export interface CloseInvocation {
  readonly type: 'CloseInvocation';
  readonly at: string;
  readonly close: InvocationCloseOutcome;
}

/** After a restart: settle what was left open and close the invocation as if it threw. */
export interface RecoverInvocation {
  readonly type: 'RecoverInvocation';
  readonly at: string;
}

/** An operator's resolution of an indeterminate action; allowed after close. */
export interface ResolveIndeterminateToolAction {
  readonly type: 'ResolveIndeterminateToolAction';
  readonly at: string;
  readonly actionInstanceId: string;
  readonly effect: ResolvedEffect;
  readonly evidenceRef: string;
}

export type InvocationCommand =
  | OpenInvocation
  | ActivateInvocation
  | AdmitToolAction
  | AdmitAndDispatchToolAction
  | DispatchToolAction
  | CompleteToolAction
  | ReportToolActionUnknown
  | CancelToolAction
  | CloseInvocation
  | RecoverInvocation
  | ResolveIndeterminateToolAction;
