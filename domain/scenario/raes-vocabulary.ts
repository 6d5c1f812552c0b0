/**
 * Closed value lists of RAES 3.3 SDL for the sections the engine reads, and the controlled vocabularies
 * RAES governs behavior specifications with (its controlled-vocabularies-v1 catalogue).
 */

export const ROLES = ['white', 'green', 'red', 'blue'] as const;
export const NODE_TYPES = ['vm', 'switch'] as const;
/** A VM's scenario function (raes/deployment_tenancy.py, EndpointPersona). */
export const ENDPOINT_PERSONAS = ['workforce', 'engineering', 'privileged_admin', 'participant', 'service', 'carrier'] as const;
export const CONTENT_TYPES = ['file', 'dataset', 'directory'] as const;
/** How a search index treats a field (raes/content.py, SearchIndexFieldSemantic). */
export const SEARCH_INDEX_FIELD_SEMANTICS = ['exact-token', 'full-text', 'integer', 'temporal', 'boolean'] as const;

export const LIFECYCLE_STATES = ['draft', 'active', 'deprecated'] as const;
export const BEHAVIORAL_GRANULARITIES = ['atomic', 'procedure', 'aggregate'] as const;
export const FAILURE_CLASSES = [
  'precondition_unsatisfied',
  'unsupported_action',
  'target_unavailable',
  'authority_denied',
  'resource_exhausted',
  'timeout',
  'interrupted',
  'contention_lost',
  'partial_success',
  'unsafe_withheld',
  'backend_error',
  'unknown',
] as const;
export const PRECONDITION_CLASSES = [
  'authority',
  'capability',
  'target',
  'knowledge',
  'resource',
  'temporal',
  'interaction',
  'realization',
] as const;
export const EFFECT_CLASSES = [
  'intended_effect',
  'side_effect',
  'observation_effect',
  'visibility_effect',
  'detection_effect',
  'evidence_effect',
  'no_effect',
  'unknown_effect',
] as const;
export const INTERACTION_CLASSES = ['coordination', 'contention', 'interference', 'shared_state_change'] as const;
export const ARGUMENT_VALUE_TYPES = ['string', 'integer', 'number', 'boolean', 'reference'] as const;
export const ARGUMENT_CARDINALITIES = ['one', 'many'] as const;
export const ARGUMENT_NORMALIZATIONS = ['identity', 'trim'] as const;
export const ARGUMENT_OMISSIONS = ['reject', 'use_default', 'omit'] as const;
/** An action contract's own temporal contracts (SEM-213), apart from the shared time model below. */
export const TEMPORAL_CONTRACT_KINDS = ['schedule', 'cadence', 'deadline', 'dwell', 'latency', 'time_window', 'timeout', 'cooldown'] as const;
export const TEMPORAL_CONTRACT_TIME_DOMAINS = ['episode_step', 'scenario_time', 'simulation_time', 'backend_time', 'wall_clock_time'] as const;
export const TEMPORAL_EVENT_POINTS = [
  'submit',
  'start',
  'end',
  'observed',
  'effective',
  'deadline',
  'window_open',
  'window_close',
  'reset',
  'replay',
] as const;
export const TIMING_DISCLOSURE_KINDS = ['pacing', 'dilation', 'synchronization', 'serialization', 'unsupported_guarantee'] as const;
export const TEMPORAL_SUPPORT_MODES = ['exact', 'bounded', 'disclosed_limitation', 'unsupported'] as const;
export const BOUNDARY_CLASSES = [
  'observable_resource',
  'telemetry_stream',
  'tool_output',
  'instruction',
  'public_task_statement',
  'starter_file',
  'scaffold_instruction',
  'subtask_guidance',
  'hidden_truth',
  'private_answer_key',
  'canary',
  'holdout_variant',
  'adjudication_material',
  'archival_evidence',
] as const;
export const VIEW_DISPOSITIONS = [
  'observable',
  'hidden',
  'evidence_only',
  'discovered',
  'inferred',
  'disclosed',
  'concealed',
  'deceptive',
] as const;
export const VIEW_TRANSITION_KINDS = ['discovery', 'inference', 'concealment', 'disclosure', 'revocation', 'deception'] as const;
export const VIEW_HISTORY_EVENT_TYPES = ['action_attempted', 'state_transition_recorded', 'observation_emitted', 'episode_close'] as const;

export const TIME_DOMAIN_KINDS = ['wall_clock', 'monotonic', 'simulated', 'logical', 'external'] as const;
export const TIME_EPOCHS = ['unix', 'scenario_start', 'run_start', 'unanchored', 'external'] as const;
export const TIME_DOMAIN_VISIBILITIES = ['runtime_only', 'participant_visible', 'evidence_only'] as const;
export const CLOCK_AUTHORITIES = ['runtime', 'backend', 'system', 'external'] as const;
export const CLOCK_MONOTONICITIES = ['strict', 'non_decreasing', 'may_jump'] as const;
export const ADVANCEMENT_MODES = ['real_time', 'dilated', 'stepped', 'event_driven', 'externally_paced'] as const;
export const SYNCHRONIZATION_MODES = ['none', 'authority', 'barrier', 'conservative'] as const;
export const RESET_BEHAVIORS = ['new_segment_zero', 'new_segment_preserve_value', 'unsupported'] as const;
export const REPLAY_BEHAVIORS = ['restart_from_anchor', 'restore_recorded_advances', 'unsupported'] as const;
export const CONSTRAINT_KINDS = ['precedence', 'duration', 'window', 'deadline', 'cadence'] as const;
export const MAPPING_KINDS = ['identity', 'affine_rational'] as const;

/** Governed extensions of every controlled vocabulary below: `x-<namespace>:<term>`. */
export const VOCABULARY_EXTENSION = /^x-[a-z0-9]+(?:-[a-z0-9]+)*:[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** participant-runtime-behavior-features and participant-runtime-interaction-features. */
export const BACKEND_FEATURES = [
  'action_contracts',
  'autonomous_execution',
  'attribution_support',
  'behavior_history',
  'effects',
  'failure_classes',
  'observation_boundaries',
  'outcome_interpretation',
  'participant_declassification',
  'participant_directed_inject_delivery',
  'participant_egress_projection',
  'participant_ingress_admission',
  'participant_intervention',
  'participant_predicate_opacity',
  'participant_transformation',
  'preconditions',
  'state_transitions',
  'temporal_contracts',
  'contention',
  'coordination',
  'interference',
  'shared_state_change',
] as const;

/** The backend features a behavior specification with an autonomous policy must declare. */
export const AUTONOMOUS_REQUIRED_FEATURES = [
  'action_contracts',
  'autonomous_execution',
  'behavior_history',
  'observation_boundaries',
  'temporal_contracts',
] as const;

export const BEHAVIOR_MODES = [
  'autonomous',
  'human-control-proxy',
  'human-supervised',
  'mixed-control',
  'policy-directed',
  'replayed',
  'scripted',
] as const;

export const DEFENSIVE_BEHAVIORS = [
  'continuous-monitoring',
  'adverse-event-analysis',
  'incident-management',
  'incident-analysis',
  'incident-response-reporting-and-communication',
  'incident-mitigation',
  'incident-recovery-plan-execution',
  'incident-recovery-communication',
] as const;

export const OFFENSIVE_BEHAVIORS = [
  'reconnaissance',
  'resource-development',
  'initial-access',
  'execution',
  'persistence',
  'privilege-escalation',
  'stealth',
  'defense-impairment',
  'credential-access',
  'discovery',
  'lateral-movement',
  'collection',
  'command-and-control',
  'exfiltration',
  'impact',
] as const;

export const AI_OFFENSIVE_BEHAVIORS = [
  'reconnaissance',
  'resource-development',
  'initial-access',
  'ai-model-access',
  'execution',
  'persistence',
  'privilege-escalation',
  'defense-evasion',
  'credential-access',
  'discovery',
  'lateral-movement',
  'collection',
  'ai-attack-staging',
  'command-and-control',
  'exfiltration',
  'impact',
] as const;

/** A term of a governed vocabulary: one of its terms or a governed extension. */
export const isGovernedTerm = (terms: ReadonlyArray<string>, value: string): boolean =>
  terms.includes(value) || VOCABULARY_EXTENSION.test(value);

/** RAES matches enum values without regard to case and with `-` for `_` (its normalize_enum_value). */
export const normalizedEnumValue = (value: string): string => value.toLowerCase().replace(/-/g, '_');

/** Sections whose keys are authored names, not fields, when they are mappings (raes/_mapping_scopes.py, HASHMAP_SECTIONS). */
export const NAME_KEYED_SECTIONS: ReadonlySet<string> = new Set([
  'nodes', 'infrastructure', 'features', 'conditions', 'propositions', 'assertions', 'vulnerabilities', 'entities',
  'injects', 'events', 'scripts', 'stories', 'content', 'generated_artifacts', 'persistent_volumes', 'accounts',
  'identity_domains', 'identity_forests', 'identity_facades', 'deployment_tenants', 'deployment_cells', 'relationships',
  'agents', 'action_contracts', 'observation_boundaries', 'outcome_interpretation_rules', 'behavior_specifications',
  'evidence_requirements', 'time_domains', 'clocks', 'time_domain_mappings', 'time_progression_policies',
  'temporal_constraints', 'objectives', 'workflows', 'variables', 'variation_points',
]);

/** Fields whose keys are always authored names (raes/_mapping_scopes.py, NESTED_HASHMAP_FIELDS). */
export const NAME_KEYED_FIELDS: ReadonlySet<string> = new Set([
  'features', 'conditions', 'injects', 'roles', 'log_options', 'labels', 'driver_options', 'ipam_options', 'facts',
  'entities', 'events', 'steps', 'extensions', 'interactive_access', 'controller_states', 'transitions', 'alternatives',
  'members', 'fixed_positions', 'tool_affordances', 'participant_inject_deliveries', 'owners', 'dimensions',
]);

/** A field key as RAES spells it (normalize_field_key): lowercase, `_` for `-`. */
export const canonicalFieldKey = (key: string): string => key.toLowerCase().replace(/-/g, '_');

/**
 * Whether the keys of `value`, written under the field `key`, are authored names rather than fields
 * (is_literal_map_field): RAES holds field keys, not names, to their canonical spelling.
 */
export const holdsNames = (key: string, value: unknown): boolean => {
  if (NAME_KEYED_FIELDS.has(key)) return true;
  const mapping = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (NAME_KEYED_SECTIONS.has(key)) return mapping;
  return key === 'properties' && Array.isArray(value);
};

/** A v3 policy's resource budget (raes/participant_resource_budgets.py). */
export const RESOURCE_OWNER_KINDS = ['participant', 'deployment_tenant', 'shared_service', 'fleet'] as const;
export const RESOURCE_KINDS = ['action_rate', 'concurrent_actions', 'storage_growth', 'inference_tokens', 'image_generations', 'accelerator'] as const;
export const RESOURCE_ACCOUNTING_MODES = ['windowed_counter', 'cumulative_counter', 'reservable_gauge', 'growth_counter', 'lease'] as const;
export const RESOURCE_RESET_MODES = ['episode', 'time_segment', 'run', 'reconciled'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];
export type ResourceAccountingMode = (typeof RESOURCE_ACCOUNTING_MODES)[number];
/** The unit each resource kind is counted in (_RESOURCE_UNITS). */
export const RESOURCE_UNITS: Readonly<Record<ResourceKind, string>> = {
  action_rate: 'actions',
  concurrent_actions: 'actions',
  storage_growth: 'bytes',
  inference_tokens: 'tokens',
  image_generations: 'images',
  accelerator: 'accelerator_milliseconds',
};
/** The accounting modes each resource kind admits (_RESOURCE_ACCOUNTING). */
export const RESOURCE_ACCOUNTING: Readonly<Record<ResourceKind, ReadonlyArray<ResourceAccountingMode>>> = {
  action_rate: ['windowed_counter'],
  concurrent_actions: ['reservable_gauge'],
  storage_growth: ['growth_counter'],
  inference_tokens: ['windowed_counter', 'cumulative_counter'],
  image_generations: ['windowed_counter', 'cumulative_counter'],
  accelerator: ['lease'],
};

/** A behavior specification's mixed_control (raes/participant_behavior_specification.py). */
export const MIXED_CONTROL_ORDER_STRATEGIES = ['total-effective-order'] as const;
export const MIXED_CONTROL_TRANSITION_KINDS = [
  'proposal',
  'approval',
  'denial',
  'external-direction',
  'intervention',
  'handoff',
  'override',
  'cancellation',
] as const;
export const MIXED_CONTROL_AUTHORITY_STATUSES = ['active', 'revoked'] as const;

/** A behavior specification's participant_inject_deliveries (raes/participant_inject_delivery.py). */
export const INJECT_DELIVERY_KINDS = ['disclosure', 'external-direction', 'intervention'] as const;
