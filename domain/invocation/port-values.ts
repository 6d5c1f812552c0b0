import * as t from 'io-ts';

/** The values an invocation's port exposes (docs/rules.md, port). */
export const InvocationPortValuesCodec = t.readonly(
  t.type({
    invocation_action_instance_id: t.string,
    participant_address: t.string,
    episode_id: t.string,
    participant_implementation_ref: t.string,
    execution_scope_ref: t.string,
    execution_generation: t.number,
    observation_point: t.string,
  }),
);
export type InvocationPortValues = t.TypeOf<typeof InvocationPortValuesCodec>;

/** The outer (autonomous) action the invocation performs; its triple closes the history. */
export const OuterActionCodec = t.readonly(
  t.type({
    action_contract_address: t.string,
    observation_boundary_address: t.string,
    target_addresses: t.readonlyArray(t.string),
    actor_provenance: t.string,
  }),
);
export type OuterAction = t.TypeOf<typeof OuterActionCodec>;
