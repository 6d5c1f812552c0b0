import type { InvocationEvent, ToolActionAdmitted } from './events';
import type { Refusal } from './refusal-codes';
import type { ToolActionRecord } from './state';

/**
 * What a decision of the invocation aggregate answers, beside its events. The port turns the answer
 * into its reply without looking anything up again, so a replay, and which step refused, are said
 * here once, by the decision that knew them.
 */

/** The step of a decision that refused: the command's own, or which half of admitAndDispatch. */
export type DecisionStep =
  | 'open'
  | 'activate'
  | 'admission'
  | 'dispatch'
  | 'complete'
  | 'report_unknown'
  | 'cancel'
  | 'close'
  | 'recover'
  | 'resolve';

export type Refused =
  | { readonly kind: 'refused'; readonly step: DecisionStep; readonly refusal: Refusal; readonly original?: undefined }
  /** admitAndDispatch replayed a known tool_call_id, and dispatching that original action refused. */
  | { readonly kind: 'refused'; readonly step: 'dispatch'; readonly refusal: Refusal; readonly original: ToolActionRecord };

export type InvocationAnswer =
  | { readonly kind: 'opened' }
  | { readonly kind: 'activated' }
  /** A new admission: the event that records it. */
  | { readonly kind: 'admitted'; readonly admission: ToolActionAdmitted }
  | { readonly kind: 'admitted_and_dispatched'; readonly admission: ToolActionAdmitted }
  /** A known tool_call_id with the same request (docs/rules.md, failure row 1): the original record, no event. */
  | { readonly kind: 'replayed'; readonly original: ToolActionRecord }
  /** admitAndDispatch of a replayed tool_call_id whose original action was still undispatched. */
  | { readonly kind: 'replayed_and_dispatched'; readonly original: ToolActionRecord }
  | { readonly kind: 'dispatched' }
  | { readonly kind: 'settled' }
  | { readonly kind: 'resolved' }
  | { readonly kind: 'closed' }
  | Refused;

/** A decision: the events to append (none for a refusal or a replay) and what they answer. */
export interface Decision {
  readonly events: readonly InvocationEvent[];
  readonly answer: InvocationAnswer;
}

const NO_EVENTS: readonly InvocationEvent[] = Object.freeze([]);

// Answers without a payload are shared: a decision allocates only its events.
export const OPENED: InvocationAnswer = Object.freeze({ kind: 'opened' });
export const ACTIVATED: InvocationAnswer = Object.freeze({ kind: 'activated' });
export const DISPATCHED: InvocationAnswer = Object.freeze({ kind: 'dispatched' });
export const SETTLED: InvocationAnswer = Object.freeze({ kind: 'settled' });
export const RESOLVED: InvocationAnswer = Object.freeze({ kind: 'resolved' });
export const CLOSED: InvocationAnswer = Object.freeze({ kind: 'closed' });

export const decided = (events: readonly InvocationEvent[], answer: InvocationAnswer): Decision => ({ events, answer });

export const refuse = (step: DecisionStep, refusal: Refusal): Decision => ({
  events: NO_EVENTS,
  answer: { kind: 'refused', step, refusal },
});

export const replayed = (original: ToolActionRecord): Decision => ({ events: NO_EVENTS, answer: { kind: 'replayed', original } });

/** The dispatch half of admitAndDispatch refused the original action of a replayed tool_call_id. */
export const refuseReplayedDispatch = (refusal: Refusal, original: ToolActionRecord): Decision => ({
  events: NO_EVENTS,
  answer: { kind: 'refused', step: 'dispatch', refusal, original },
});

/** The refusal an answer carries, or undefined when the decision was not refused. */
export const refusalOf = (answer: InvocationAnswer): Refusal | undefined => (answer.kind === 'refused' ? answer.refusal : undefined);
