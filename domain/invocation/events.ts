import * as t from 'io-ts';
import { ActionResultCodec } from './action-result';
import { AdmissionContextCodec } from './admission-context';
import { InvocationPortValuesCodec, OuterActionCodec } from './port-values';
import { ToolActionRequestCodec } from './tool-action-request';

/**
 * The invocation stream's events: one codec per event with a literal `type`; the TypeScript types are
 * derived from the codecs. Events carry identities, decisions and typed RAES outcomes, never a tool's
 * arguments or result payload.
 */

export const InvocationOpenedCodec = t.readonly(
  t.type({
    type: t.literal('InvocationOpened'),
    at: t.string,
    invocation_action_instance_id: t.string,
    port_values: InvocationPortValuesCodec,
    outer_action: OuterActionCodec,
    admission_context: AdmissionContextCodec,
  }),
);
export type InvocationOpened = t.TypeOf<typeof InvocationOpenedCodec>;

/** Dispatch of the outer action began: the port is active. */
export const InvocationActivatedCodec = t.readonly(
  t.type({
    type: t.literal('InvocationActivated'),
    at: t.string,
    invocation_action_instance_id: t.string,
  }),
);
export type InvocationActivated = t.TypeOf<typeof InvocationActivatedCodec>;

export const ToolActionAdmittedCodec = t.readonly(
  t.type({
    type: t.literal('ToolActionAdmitted'),
    at: t.string,
    invocation_action_instance_id: t.string,
    action_instance_id: t.string,
    tool_call_id: t.string,
    admission_ordinal: t.number,
    request: ToolActionRequestCodec,
    /** The one manifest offer that covers the action (admission rule 8). */
    offer_binding_id: t.string,
  }),
);
export type ToolActionAdmitted = t.TypeOf<typeof ToolActionAdmittedCodec>;

export const ToolActionDispatchedCodec = t.readonly(
  t.type({
    type: t.literal('ToolActionDispatched'),
    at: t.string,
    invocation_action_instance_id: t.string,
    action_instance_id: t.string,
  }),
);
export type ToolActionDispatched = t.TypeOf<typeof ToolActionDispatchedCodec>;

export const WithheldReasonCodec = t.keyof({ cancelled: null, invocation_closed: null, recovered: null });
export type WithheldReason = t.TypeOf<typeof WithheldReasonCodec>;

const settledBase = {
  type: t.literal('ToolActionSettled'),
  at: t.string,
  invocation_action_instance_id: t.string,
  action_instance_id: t.string,
};

export const ToolActionCompletedCodec = t.readonly(
  t.type({ ...settledBase, settlement: t.literal('completed'), action_result: ActionResultCodec }),
);
export const ToolActionWithheldCodec = t.readonly(
  t.type({ ...settledBase, settlement: t.literal('withheld'), reason: WithheldReasonCodec }),
);
/** Effects unknown: reported by the harness, or found dispatched without outcome at close or recovery. */
export const ToolActionIndeterminateCodec = t.readonly(
  t.type({ ...settledBase, settlement: t.literal('indeterminate'), reason: t.string }),
);
export const ToolActionSettledCodec = t.union([
  ToolActionCompletedCodec,
  ToolActionWithheldCodec,
  ToolActionIndeterminateCodec,
]);
export type ToolActionSettled = t.TypeOf<typeof ToolActionSettledCodec>;
export type Settlement = ToolActionSettled['settlement'];

const closedBase = {
  type: t.literal('InvocationClosed'),
  at: t.string,
  invocation_action_instance_id: t.string,
  /** True when the invocation was closed by recovery after a restart. */
  recovered: t.boolean,
};

export const InvocationReturnedCodec = t.readonly(
  t.type({ ...closedBase, outcome: t.literal('returned'), action_result: ActionResultCodec }),
);
export const InvocationThrewCodec = t.readonly(t.type({ ...closedBase, outcome: t.literal('threw') }));
export const InvocationReturnedInvalidCodec = t.readonly(
  t.type({ ...closedBase, outcome: t.literal('invalid_result'), reason: t.string }),
);
export const InvocationClosedCodec = t.union([
  InvocationReturnedCodec,
  InvocationThrewCodec,
  InvocationReturnedInvalidCodec,
]);
export type InvocationClosed = t.TypeOf<typeof InvocationClosedCodec>;
export type InvocationOutcome = InvocationClosed['outcome'];

export const ResolvedEffectCodec = t.keyof({ happened: null, absent: null });
export type ResolvedEffect = t.TypeOf<typeof ResolvedEffectCodec>;

/** An operator's resolution of an indeterminate action; the recorded history is not rewritten. */
export const ToolActionResolvedCodec = t.readonly(
  t.type({
    type: t.literal('ToolActionResolved'),
    at: t.string,
    invocation_action_instance_id: t.string,
    action_instance_id: t.string,
    effect: ResolvedEffectCodec,
    evidence_ref: t.string,
  }),
);
export type ToolActionResolved = t.TypeOf<typeof ToolActionResolvedCodec>;

export const InvocationEventCodec = t.union([
  InvocationOpenedCodec,
  InvocationActivatedCodec,
  ToolActionAdmittedCodec,
  ToolActionDispatchedCodec,
  ToolActionSettledCodec,
  InvocationClosedCodec,
  ToolActionResolvedCodec,
]);
export type InvocationEvent = t.TypeOf<typeof InvocationEventCodec>;
export type InvocationEventType = InvocationEvent['type'];

export const INVOCATION_EVENT_TYPES: readonly InvocationEventType[] = [
  'InvocationOpened',
  'InvocationActivated',
  'ToolActionAdmitted',
  'ToolActionDispatched',
  'ToolActionSettled',
  'InvocationClosed',
  'ToolActionResolved',
];
