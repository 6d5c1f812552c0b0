import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

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
