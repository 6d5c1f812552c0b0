import * as t from 'io-ts';
import { LIMITS, NonEmptyString, integerFrom, nonEmptyArray, strictObject } from '../scenario/decoding';

/**
 * A backend manifest (JSON; docs/rules.md, registration). The participant runtime's capabilities carry the
 * features it supports, its participant implementations (each with its exposure policy), its
 * execution-binding offers and, optionally, the invocation tool actions claim.
 */

const NonEmptyStrings = nonEmptyArray(NonEmptyString, 'a non-empty list of non-empty strings');

export const SUPPORT_LEVELS = ['unsupported', 'disclosed_weak', 'bounded', 'exact'] as const;
export const SupportLevelCodec = t.keyof(
  { unsupported: null, disclosed_weak: null, bounded: null, exact: null },
  'one of unsupported, disclosed_weak, bounded, exact',
);
export type SupportLevel = t.TypeOf<typeof SupportLevelCodec>;

export const FeatureSupportCodec = strictObject(
  'FeatureSupport',
  { feature: NonEmptyString, support_level: SupportLevelCodec },
  {},
  ['description', 'limitations'],
);

/** Strict form of raes/schemas/participant-execution-binding-v1.json. */
export const ExecutionBindingOfferCodec = strictObject(
  'ExecutionBindingOffer',
  {
    binding_id: NonEmptyString,
    action_contract_address: NonEmptyString,
    target_addresses: NonEmptyStrings,
    participant_implementation_ref: NonEmptyString,
    constraint_refs: NonEmptyStrings,
    evidence_refs: NonEmptyStrings,
    max_action_attempts: integerFrom(1, LIMITS.maxActionAttempts),
    max_in_flight: integerFrom(1, LIMITS.maxInFlight),
    timeout_seconds: integerFrom(1, LIMITS.timeoutSeconds),
    max_retries: integerFrom(0, LIMITS.maxRetries),
  },
  { schema_version: t.literal('participant-execution-binding/v1') },
);
export type ExecutionBindingOffer = t.TypeOf<typeof ExecutionBindingOfferCodec>;

/**
 * A participant implementation the runtime can select. Its exposure policy's `withheld_refs` are the
 * refs an outcome of this implementation may never carry.
 */
export const ParticipantImplementationCodec = strictObject(
  'ParticipantImplementation',
  {
    implementation_ref: NonEmptyString,
    name: NonEmptyString,
    version: NonEmptyString,
    exposure_policy: strictObject('ExposurePolicy', { withheld_refs: t.array(NonEmptyString) }, {}, ['description']),
  },
  {},
  ['description'],
);
export type ParticipantImplementation = t.TypeOf<typeof ParticipantImplementationCodec>;

/** The claim. Its values are checked as claim defects, so they decode loosely here. */
export const InvocationToolActionsClaimCodec = strictObject(
  'InvocationToolActionsClaim',
  {
    semantic_versions: t.array(t.string),
    max_tool_actions_per_invocation: t.unknown,
    max_concurrent_tool_actions_per_invocation: t.unknown,
  },
  {},
);
export type InvocationToolActionsClaim = t.TypeOf<typeof InvocationToolActionsClaimCodec>;

export const ParticipantRuntimeCapabilitiesCodec = strictObject(
  'ParticipantRuntimeCapabilities',
  {
    supports_autonomous_execution: t.boolean,
    supported_behavior_features: t.array(t.string),
  },
  {
    feature_support: t.array(FeatureSupportCodec),
    participant_implementations: t.array(ParticipantImplementationCodec),
    execution_bindings: t.array(ExecutionBindingOfferCodec),
    invocation_tool_actions: InvocationToolActionsClaimCodec,
  },
  ['description'],
);
export type ParticipantRuntimeCapabilities = t.TypeOf<typeof ParticipantRuntimeCapabilitiesCodec>;

export const ManifestDocumentCodec = strictObject(
  'BackendManifest',
  { backend: NonEmptyString, participant_runtime: ParticipantRuntimeCapabilitiesCodec },
  { manifest_version: t.string },
  ['description'],
);
export type ManifestDocument = t.TypeOf<typeof ManifestDocumentCodec>;
