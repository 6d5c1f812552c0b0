import * as t from 'io-ts';
import { LIMITS, LooseObject, NonEmptyString, integerFrom, namedMap, nonEmptyArray, strictObject } from './decoding';

/**
 * The authored scenario (docs/rules.md, authoring): the subset of RAES SDL the engine reads, typed exactly,
 * plus the other RAES SDL sections and fields, accepted and not read. Anything else is an unknown key.
 */

const Names = t.array(t.string);
const NonEmptyNames = nonEmptyArray(t.string, 'a non-empty list of names');

export const ServiceCodec = strictObject(
  'Service',
  { name: t.string },
  { port: t.number, protocol: t.string },
  ['description'],
);

export const NodeCodec = strictObject(
  'Node',
  {},
  { services: t.array(ServiceCodec) },
  ['type', 'os', 'os_version', 'description', 'source', 'resources', 'conditions', 'features', 'vulnerabilities', 'roles', 'injects', 'asset_value'],
);

export const RoleCodec = t.keyof({ blue: null, green: null, red: null, white: null }, 'one of blue, green, red, white');
export type Role = t.TypeOf<typeof RoleCodec>;

export const EntityCodec = strictObject(
  'Entity',
  {},
  { role: RoleCodec, entities: t.UnknownRecord },
  ['name', 'description', 'mission', 'categories', 'vulnerabilities', 'tlos', 'facts', 'events'],
);

export const AgentCodec = strictObject(
  'Agent',
  { entity: t.string },
  { actions: Names, observation_boundaries: Names },
  ['description', 'initial_knowledge', 'allowed_subnets', 'authority_anchors', 'operating_scope', 'starting_accounts'],
);

export const PreconditionCodec = strictObject(
  'Precondition',
  { precondition_id: t.string },
  { precondition_class: t.string, support_refs: Names },
  ['description'],
);

export const EffectCodec = strictObject(
  'Effect',
  { effect_id: t.string },
  { effect_class: t.string, target_refs: Names, evidence_refs: Names },
  ['description'],
);

export const ActionContractCodec = strictObject(
  'ActionContract',
  {},
  {
    preconditions: t.array(PreconditionCodec),
    effects: t.array(EffectCodec),
    failure_classes: Names,
    temporal_contracts: t.array(t.unknown),
  },
  [
    'description',
    'semantic_version',
    'lifecycle_state',
    'behavioral_granularity',
    'procedure_basis',
    'realization_profile',
    'fidelity_claim',
    'state_transition_effects',
    'observation_expectations',
    'evidence_expectations',
    'backend_failure_mappings',
    'interactions',
  ],
);

export const ViewRuleCodec = strictObject(
  'ViewRule',
  { information_ref: t.string },
  { boundary_class: t.string, disposition: t.string, visibility_basis: t.string, evidence_refs: Names },
  ['latency_profile', 'description'],
);

export const ObservationBoundaryCodec = strictObject(
  'ObservationBoundary',
  {},
  { observable_refs: Names, hidden_refs: Names, evidence_refs: Names, view_rules: t.array(ViewRuleCodec) },
  [
    'description',
    'projection_basis',
    'redaction_policy',
    'latency_profile',
    'observer_effects',
    'realized_view_disclosure',
    'view_transitions',
  ],
);

export const TemporalConstraintCodec = strictObject(
  'TemporalConstraint',
  { constraint_kind: t.string },
  {
    clock_ref: t.string,
    subject_refs: Names,
    cadence_ticks: integerFrom(1, LIMITS.ticks),
    start: strictObject('TemporalConstraintStart', {}, { tick: integerFrom(0, LIMITS.ticks) }, ['segment']),
  },
  ['description', 'window', 'deadline_ticks', 'offset_ticks', 'tolerance_ticks'],
);

export const PROFILE_V1 = 'participant-autonomous-execution/v1';
export const ProfileCodec = t.keyof(
  {
    'participant-autonomous-execution/v1': null,
    'participant-autonomous-execution/v2': null,
    'participant-autonomous-execution/v3': null,
  },
  'one of participant-autonomous-execution/v1, /v2, /v3',
);

export const FailurePolicyCodec = t.keyof({ stop: null, continue: null }, 'one of stop, continue');
export const EvaluationAuthorityCodec = strictObject(
  'EvaluationAuthority',
  { mode: t.keyof({ none: null, declared: null }, 'one of none, declared') },
  {},
  ['description', 'authority_refs'],
);

export const AutonomousExecutionCodec = strictObject(
  'AutonomousExecution',
  { participant_implementation_ref: NonEmptyString, observation_boundary_ref: t.string, max_action_attempts: integerFrom(1, LIMITS.maxActionAttempts) },
  {
    profile: ProfileCodec,
    clock_ref: t.string,
    temporal_constraint_refs: Names,
    action_order: Names,
    progression_policy_ref: NonEmptyString,
    // RAES fixes the strategy per profile (v1: ordered_cycle, v2: weighted); checked in validate-policies.
    selection_strategy: t.string,
    max_in_flight: integerFrom(1, LIMITS.maxInFlight),
    failure_policy: FailurePolicyCodec,
    evaluation_authority: EvaluationAuthorityCodec,
  },
  ['description'],
);

export const ToolAffordanceCodec = strictObject(
  'ToolAffordance',
  { action_contract_refs: NonEmptyNames, observation_boundary_refs: NonEmptyNames },
  { tool_ref: NonEmptyString, participant_refs: NonEmptyNames },
  ['description'],
);

export const BehaviorSpecificationCodec = strictObject(
  'BehaviorSpecification',
  {},
  {
    participant_refs: Names,
    participant_role_refs: t.array(RoleCodec),
    action_contract_refs: Names,
    observation_boundary_refs: Names,
    autonomous_execution: AutonomousExecutionCodec,
    tool_affordances: namedMap(ToolAffordanceCodec, 'tool affordances by name'),
  },
  [
    'description',
    'semantic_version',
    'lifecycle_state',
    'outcome_interpretation_rule_refs',
    'authority_scope_refs',
    'behavior_mode',
    'realization_profile_ref',
    'backend_feature_support_refs',
    'evidence_contract_refs',
    'extension_policy',
  ],
);

const section = <C extends t.Mixed>(codec: C, what: string) => namedMap(codec, `${what} by name`);

export const ScenarioDocumentCodec = strictObject(
  'Scenario',
  { name: t.string },
  {
    nodes: section(NodeCodec, 'nodes'),
    entities: section(EntityCodec, 'entities'),
    agents: section(AgentCodec, 'agents'),
    content: section(LooseObject, 'content'),
    action_contracts: section(ActionContractCodec, 'action contracts'),
    observation_boundaries: section(ObservationBoundaryCodec, 'observation boundaries'),
    clocks: section(LooseObject, 'clocks'),
    time_domains: section(LooseObject, 'time domains'),
    time_progression_policies: section(LooseObject, 'time progression policies'),
    temporal_constraints: section(TemporalConstraintCodec, 'temporal constraints'),
    behavior_specifications: section(BehaviorSpecificationCodec, 'behavior specifications'),
  },
  // Other sections of RAES SDL: accepted, not read by this composition.
  [
    'version',
    'description',
    'start',
    'end',
    'infrastructure',
    'features',
    'conditions',
    'vulnerabilities',
    'capabilities',
    'metrics',
    'evaluations',
    'tlos',
    'goals',
    'injects',
    'events',
    'scripts',
    'stories',
    'accounts',
    'relationships',
    'variables',
    'objectives',
    'workflows',
    'propositions',
    'assertions',
    'evidence_requirements',
    'outcome_interpretation_rules',
  ],
);

export type ScenarioDocument = t.TypeOf<typeof ScenarioDocumentCodec>;
export type AgentDocument = t.TypeOf<typeof AgentCodec>;
export type ActionContractDocument = t.TypeOf<typeof ActionContractCodec>;
export type ObservationBoundaryDocument = t.TypeOf<typeof ObservationBoundaryCodec>;
export type TemporalConstraintDocument = t.TypeOf<typeof TemporalConstraintCodec>;
export type BehaviorSpecificationDocument = t.TypeOf<typeof BehaviorSpecificationCodec>;
export type AutonomousExecutionDocument = t.TypeOf<typeof AutonomousExecutionCodec>;
export type ToolAffordanceDocument = t.TypeOf<typeof ToolAffordanceCodec>;
