import * as t from 'io-ts';

/**
 * What an invocation's tool calls are judged against. The scenario compiler and the manifest
 * produce it (domain/scenario, domain/manifest); the invocation aggregate only reads it.
 * It is stored in the InvocationOpened event, narrowed to the invocation's participant and
 * implementation, so a stream can be re-judged without the scenario file.
 */

export const POLICY_PROFILES = [
  'participant-autonomous-execution/v1',
  'participant-autonomous-execution/v2',
  'participant-autonomous-execution/v3',
] as const;
export type PolicyProfile = (typeof POLICY_PROFILES)[number];
export const PolicyProfileCodec = t.keyof({
  'participant-autonomous-execution/v1': null,
  'participant-autonomous-execution/v2': null,
  'participant-autonomous-execution/v3': null,
});

/** One compiled (affordance, action contract, participant) join (docs/rules.md, compilation). */
export const AffordanceBindingCodec = t.readonly(
  t.type({
    tool_affordance_address: t.string,
    action_contract_address: t.string,
    participant_address: t.string,
    observation_boundary_addresses: t.readonlyArray(t.string),
    target_addresses: t.readonlyArray(t.string),
  }),
);
export type AffordanceBinding = t.TypeOf<typeof AffordanceBindingCodec>;

/** One execution-binding offer of a manifest (raes/schemas/participant-execution-binding-v1.json). */
export const ExecutionOfferCodec = t.readonly(
  t.intersection([
    t.type({
      binding_id: t.string,
      action_contract_address: t.string,
      target_addresses: t.readonlyArray(t.string),
      participant_implementation_ref: t.string,
      constraint_refs: t.readonlyArray(t.string),
      evidence_refs: t.readonlyArray(t.string),
      max_action_attempts: t.number,
      max_in_flight: t.number,
      timeout_seconds: t.number,
      max_retries: t.number,
    }),
    t.partial({ schema_version: t.literal('participant-execution-binding/v1') }),
  ]),
);
export type ExecutionOffer = t.TypeOf<typeof ExecutionOfferCodec>;

export const ToolActionLimitsCodec = t.readonly(
  t.type({
    max_tool_actions_per_invocation: t.number,
    max_concurrent_tool_actions_per_invocation: t.number,
  }),
);
export type ToolActionLimits = t.TypeOf<typeof ToolActionLimitsCodec>;

export const AdmissionContextCodec = t.readonly(
  t.type({
    policy_profile: PolicyProfileCodec,
    limits: ToolActionLimitsCodec,
    affordance_bindings: t.readonlyArray(AffordanceBindingCodec),
    /** Action contract addresses that have a shared-time binding (docs/rules.md, compilation). */
    shared_time_bound_actions: t.readonlyArray(t.string),
    offers: t.readonlyArray(ExecutionOfferCodec),
    /** Evidence refs each observation boundary declares, by boundary address. */
    boundary_evidence_refs: t.readonly(t.record(t.string, t.readonlyArray(t.string))),
    /** The implementation's exposure policy: refs an outcome may never carry. */
    withheld_refs: t.readonlyArray(t.string),
  }),
);
export type AdmissionContext = t.TypeOf<typeof AdmissionContextCodec>;
