import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { loadScenario } from '../../../domain/scenario';

export const EXAMPLES = join(__dirname, '../../../examples');
export const PORTAL_PROBE_SCENARIO = join(EXAMPLES, 'portal-probe.scenario.yaml');
export const PORTAL_PROBE_MANIFEST = join(EXAMPLES, 'portal-probe.manifest.json');
export const ENTERPRISE_SCENARIO = join(__dirname, '..', '..', '..', 'schemas', 'raes', 'scenarios', 'examples', 'enterprise-participant-evidence-loop.sdl.yaml');

// Authored YAML is untyped here on purpose: tests edit it like a person would.
export type Yaml = any;

/** The portal-probe example, edited by `edit`, as YAML text. */
export const portalProbeWith = (edit: (doc: Yaml) => void): string => {
  const doc: Yaml = parse(readFileSync(PORTAL_PROBE_SCENARIO, 'utf8'));
  edit(doc);
  return stringify(doc);
};

export const enterpriseWith = (edit: (doc: Yaml) => void): string => {
  const doc: Yaml = parse(readFileSync(ENTERPRISE_SCENARIO, 'utf8'));
  edit(doc);
  return stringify(doc);
};

export const portalProbeManifest = (): Yaml => JSON.parse(readFileSync(PORTAL_PROBE_MANIFEST, 'utf8'));

export const SPEC = 'participant-behavior';
export const AFFORDANCE_REF = 'behavior_specifications.participant-behavior.tool_affordances.portal-client';
export const AFFORDANCE_ADDRESS = 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client';
export const PORTAL_HTTP = 'provision.node.customer-portal.service.http';
export const AGENT_ADDRESS = 'participant.behavior.participant-agent';
export const POLICY_ADDRESS = 'participant.autonomous-execution.participant-behavior';

/** A temporal contract RAES 3.3 accepts on an action contract, with the timing disclosure it needs. */
export const scheduleTemporalContract = (): Yaml => ({
  temporal_id: 'probe-schedule',
  temporal_kind: 'schedule',
  time_domain: 'scenario_time',
  clock_authority: 'exercise-clock',
  event_points: ['submit'],
  description: 'The probe is submitted within its window.',
  window_ref: 'probe-window',
  ordering_basis: 'scenario tick order',
  backend_disclosure_refs: ['probe-pacing'],
});
export const pacingDisclosure = (): Yaml => ({
  disclosure_id: 'probe-pacing',
  disclosure_kind: 'pacing',
  support_mode: 'exact',
  description: 'The backend submits the probe at the scheduled tick.',
  affected_temporal_ids: ['probe-schedule'],
});

/** A dimension of a resource budget, owned by the participant unless changed. */
const budgetDimension = (kind: string, unit: string, mode: string, more: Yaml = {}): Yaml => ({
  owner_ref: 'agent',
  pool_ref: `pool-${kind}`,
  resource_kind: kind,
  unit,
  accounting_mode: mode,
  meter_profile_ref: 'meter',
  limit: 10,
  reservation: 1,
  reset: 'episode',
  ...more,
});

/** A resource budget RAES 3.3 accepts for a v3 policy with max_in_flight 1: every resource kind, one participant concurrency budget of 1. */
export const resourceBudget = (): Yaml => ({
  policy_id: 'probe-budget',
  owners: { agent: { kind: 'participant', ref: 'participant-agent' } },
  fairness: {
    policy: 'weighted-fair',
    priority_class: 'standard',
    weight: 1,
    protected: false,
    borrowing: 'none',
    reclaim: 'none',
    max_queue_ticks: 0,
    starvation_bound_ticks: 10,
  },
  dimensions: {
    actions: budgetDimension('action_rate', 'actions', 'windowed_counter', { window_ticks: 10 }),
    concurrency: budgetDimension('concurrent_actions', 'actions', 'reservable_gauge', { limit: 1 }),
    storage: budgetDimension('storage_growth', 'bytes', 'growth_counter', { reset: 'reconciled' }),
    tokens: budgetDimension('inference_tokens', 'tokens', 'cumulative_counter'),
    images: budgetDimension('image_generations', 'images', 'cumulative_counter'),
    accelerator: budgetDimension('accelerator', 'accelerator_milliseconds', 'lease'),
  },
});

/** Turns the example's policy into an activity policy (v2, or v3 with `resourceBudget()`) on a work window. */
export const activityPolicyOf = (doc: Yaml, profile: string): void => {
  doc.temporal_constraints['work-window'] = {
    constraint_kind: 'window',
    clock_ref: 'exercise-clock',
    subject_refs: ['participant-behavior'],
    start: { tick: 0 },
    end: { tick: 100 },
    description: 'When the participant may work.',
  };
  doc.behavior_specifications[SPEC].autonomous_execution = {
    profile,
    participant_implementation_ref: 'participant-agent-runner',
    clock_ref: 'exercise-clock',
    progression_policy_ref: 'exercise-stepping',
    work_window_refs: ['work-window'],
    observation_boundary_ref: 'participant-view',
    stochastic_control_ref: 'probe-activity',
    selection_strategy: 'weighted',
    timing: { minimum_ticks: 1, maximum_ticks: 3 },
    outside_window_disposition: 'next_opening',
    empty_eligible_disposition: 'complete',
    action_candidates: { probe: { action_ref: 'probe-customer-portal-login', weight: 1 } },
    max_occurrences: 3,
    max_action_attempts: 3,
    evaluation_authority: { mode: 'none' },
    ...(profile.endsWith('/v3') ? { resource_budget: resourceBudget() } : {}),
  };
};

/** The scenario's error diagnostics, as code, address and message. */
export const errorDiagnostics = (text: string) =>
  loadScenario(text)
    .diagnostics.filter((d) => d.severity === 'error')
    .map((d) => ({ code: d.code, address: d.address, message: d.message }));

/** What an error diagnostic is expected to be: its message containing a text, or matching an expression. */
export const expectedDiagnostic = (code: string, address: string, message: string | RegExp = /./) => ({
  code,
  address,
  message: typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message),
});
