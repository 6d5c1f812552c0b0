import type { ActionResult } from './action-result';
import type { AdmissionContext } from './admission-context';
import type { ResolvedEffect, WithheldReason } from './events';
import type { InvocationPortValues, OuterAction } from './port-values';
import type { ToolActionRequest } from './tool-action-request';

/** How a tool action ended. Each settlement carries only what it can have. */
export type ToolActionSettlement =
  | { readonly kind: 'completed'; readonly actionResult: ActionResult }
  | { readonly kind: 'withheld'; readonly reason: WithheldReason }
  | { readonly kind: 'indeterminate'; readonly reason: string };

export interface ToolActionResolution {
  readonly effect: ResolvedEffect;
  readonly evidenceRef: string;
  readonly resolvedAt: string;
}

/** What an admission fixes about a tool action; every later record of it carries the same. */
export interface ToolActionIdentity {
  readonly actionInstanceId: string;
  readonly toolCallId: string;
  readonly admissionOrdinal: number;
  readonly request: ToolActionRequest;
  readonly offerBindingId: string;
  readonly admittedAt: string;
}

export interface AdmittedToolAction extends ToolActionIdentity {
  readonly phase: 'admitted';
}

export interface DispatchedToolAction extends ToolActionIdentity {
  readonly phase: 'dispatched';
  readonly dispatchedAt: string;
}

export interface SettledToolAction extends ToolActionIdentity {
  readonly phase: 'settled';
  /** Null when the action settled without ever being dispatched. */
  readonly dispatchedAt: string | null;
  readonly settledAt: string;
  readonly settlement: ToolActionSettlement;
  /** Only an indeterminate settlement can be resolved, by an operator. */
  readonly resolution: ToolActionResolution | null;
}

export type ToolActionRecord = AdmittedToolAction | DispatchedToolAction | SettledToolAction;

export type InvocationClosure =
  | { readonly outcome: 'returned'; readonly actionResult: ActionResult }
  | { readonly outcome: 'threw' }
  | { readonly outcome: 'invalid_result'; readonly reason: string };

export type InvocationLifecycle =
  | { readonly status: 'inactive' }
  | { readonly status: 'active'; readonly activatedAt: string }
  | {
      readonly status: 'closed';
      readonly activatedAt: string | null;
      readonly closedAt: string;
      readonly closure: InvocationClosure;
      readonly recovered: boolean;
    };

export interface UnopenedInvocation {
  readonly status: 'unopened';
}

export interface OpenedInvocation {
  readonly status: 'opened';
  readonly openedAt: string;
  readonly portValues: InvocationPortValues;
  readonly outerAction: OuterAction;
  readonly admissionContext: AdmissionContext;
  readonly lifecycle: InvocationLifecycle;
  /** In admission order: the action with ordinal n is at position n - 1. */
  readonly toolActions: readonly ToolActionRecord[];
  /** tool_call_id -> position in toolActions. */
  readonly positionByToolCallId: ReadonlyMap<string, number>;
  /** action_instance_id -> position in toolActions. */
  readonly positionByActionId: ReadonlyMap<string, number>;
  /** Admitted and not yet settled. */
  readonly openCount: number;
  /** Settled indeterminate and not yet resolved. */
  readonly unresolvedIndeterminateCount: number;
}

export type InvocationState = UnopenedInvocation | OpenedInvocation;
