import * as t from 'io-ts';
import { BoundedText, BoundedTexts, boundedList } from './bounded-text';

/**
 * RAES ParticipantActionResultModel (raes/schemas/participant-behavior-history-event-stream-v1.json),
 * the typed outcome of one action. Codecs are exact: unknown fields are stripped on decode, so
 * nothing but the model's own fields can reach an event.
 */

const NonEmptyString = t.refinement(t.string, (value) => value.length > 0, 'non-empty string');

export const ACTION_RESULT_STATUSES = [
  'accepted',
  'rejected',
  'withheld',
  'succeeded',
  'failed',
  'partial_success',
  'unknown',
] as const;
export const ActionResultStatusCodec = t.keyof({
  accepted: null,
  rejected: null,
  withheld: null,
  succeeded: null,
  failed: null,
  partial_success: null,
  unknown: null,
});
export type ActionResultStatus = t.TypeOf<typeof ActionResultStatusCodec>;

/** Statuses a completed tool action may report (docs/rules.md, port). */
export const TERMINAL_TOOL_STATUSES: ReadonlySet<ActionResultStatus> = new Set<ActionResultStatus>([
  'succeeded',
  'failed',
  'partial_success',
  'rejected',
]);

export const FailureClassCodec = t.keyof({
  precondition_unsatisfied: null,
  unsupported_action: null,
  target_unavailable: null,
  authority_denied: null,
  resource_exhausted: null,
  timeout: null,
  interrupted: null,
  contention_lost: null,
  partial_success: null,
  unsafe_withheld: null,
  backend_error: null,
  unknown: null,
});
export type FailureClass = t.TypeOf<typeof FailureClassCodec>;

export const EffectClassCodec = t.keyof({
  intended_effect: null,
  side_effect: null,
  observation_effect: null,
  visibility_effect: null,
  detection_effect: null,
  evidence_effect: null,
  no_effect: null,
  unknown_effect: null,
});

export const ActionEffectResultCodec = t.exact(
  t.intersection([
    t.type({ effect_id: NonEmptyString, effect_class: EffectClassCodec, description: BoundedText }),
    t.partial({ diagnostics: BoundedTexts, evidence_refs: BoundedTexts, target_refs: BoundedTexts }),
  ]),
);
export type ActionEffectResult = t.TypeOf<typeof ActionEffectResultCodec>;

export const PreconditionClassCodec = t.keyof({
  authority: null,
  capability: null,
  target: null,
  knowledge: null,
  resource: null,
  temporal: null,
  interaction: null,
  realization: null,
});

export const PreconditionStatusCodec = t.keyof({ satisfied: null, unsatisfied: null, unresolved: null });

/** One precondition's resolved state on an action result (RAES ParticipantActionPreconditionResultModel). */
export const ActionPreconditionResultCodec = t.exact(
  t.intersection([
    t.type({
      precondition_id: NonEmptyString,
      precondition_class: PreconditionClassCodec,
      status: PreconditionStatusCodec,
      participant_address: NonEmptyString,
      episode_id: NonEmptyString,
      action_contract_address: NonEmptyString,
      observation_point: NonEmptyString,
    }),
    t.partial({ support_refs: BoundedTexts, evidence_refs: BoundedTexts, diagnostics: BoundedTexts }),
  ]),
);
export type ActionPreconditionResult = t.TypeOf<typeof ActionPreconditionResultCodec>;

export const ActionResultCodec = t.exact(
  t.intersection([
    t.type({
      status: ActionResultStatusCodec,
      participant_address: NonEmptyString,
      episode_id: NonEmptyString,
      action_instance_id: NonEmptyString,
      action_contract_address: NonEmptyString,
      observation_point: NonEmptyString,
    }),
    t.partial({
      diagnostics: BoundedTexts,
      effects: boundedList(ActionEffectResultCodec),
      evidence_refs: BoundedTexts,
      failure_class: t.union([FailureClassCodec, t.null]),
      observations: BoundedTexts,
      preconditions: boundedList(ActionPreconditionResultCodec),
    }),
  ]),
  // Named as RAES names it: io-ts would spell out every member in messages.
  'ParticipantActionResultModel',
);
export type ActionResult = t.TypeOf<typeof ActionResultCodec>;

/** Every evidence ref an outcome carries, its own and its effects'. */
export const evidenceRefsOf = (result: ActionResult): readonly string[] => {
  const refs: string[] = [];
  if (result.evidence_refs !== undefined) for (const ref of result.evidence_refs) refs.push(ref);
  if (result.effects !== undefined) {
    for (const effect of result.effects) {
      if (effect.evidence_refs !== undefined) for (const ref of effect.evidence_refs) refs.push(ref);
    }
  }
  return refs;
};
