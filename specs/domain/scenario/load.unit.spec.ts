import { readFileSync } from 'node:fs';
import { loadScenario } from '../../../domain/scenario';
import {
  AFFORDANCE_ADDRESS,
  AFFORDANCE_REF,
  AGENT_ADDRESS,
  ENTERPRISE_SCENARIO,
  PORTAL_HTTP,
  PORTAL_PROBE_SCENARIO,
  enterpriseWith,
  portalProbeWith,
} from './scenario-fixtures';

describe('loading the RAES enterprise example', () => {
  it('loads and compiles, with its sections outside this composition accepted', () => {
    const result = loadScenario(readFileSync(ENTERPRISE_SCENARIO, 'utf8'));
    expect(result.diagnostics).toEqual([]);
    if (!result.ok) throw new Error('expected the enterprise example to compile');
    expect(result.compiled.participants.map((p) => p.address)).toEqual([AGENT_ADDRESS]);
    const probe = result.compiled.actionContracts.find(
      (c) => c.address === 'participant.action-contract.probe-customer-portal-login',
    );
    expect(probe?.targetAddresses[0]).toBe(PORTAL_HTTP);
  });

  it('compiles the seed affordance to its address, bound to the policy participant with the portal target', () => {
    const text = enterpriseWith((doc) => {
      const view = doc.observation_boundaries['participant-view'];
      view.observable_refs.push(AFFORDANCE_REF);
      view.view_rules.push({
        information_ref: AFFORDANCE_REF,
        boundary_class: 'tool_output',
        disposition: 'observable',
        visibility_basis: 'Tool outcomes are visible to the calling participant.',
      });
      doc.time_domains = {
        'exercise-time': { kind: 'logical', tick_period_seconds: { numerator: 1, denominator: 1 }, epoch: 'scenario_start', description: 'exercise time' },
      };
      doc.clocks = {
        'exercise-clock': {
          time_domain_ref: 'exercise-time',
          authority_kind: 'runtime',
          authority_ref: 'runtime.time-coordinator',
          monotonicity: 'non_decreasing',
          supports_reset: true,
          description: 'shared logical clock',
        },
      };
      doc.time_progression_policies = {
        'exercise-stepping': {
          clock_ref: 'exercise-clock',
          advancement_mode: 'stepped',
          synchronization_mode: 'barrier',
          step_ticks: 1,
          reset_behavior: 'new_segment_zero',
          replay_behavior: 'restore_recorded_advances',
          description: 'one tick per step',
        },
      };
      doc.temporal_constraints = {
        'probe-cadence': {
          constraint_kind: 'cadence',
          clock_ref: 'exercise-clock',
          subject_refs: ['participant-behavior'],
          cadence_ticks: 1,
          start: { tick: 0 },
          description: 'one probe a tick',
        },
      };
      const spec = doc.behavior_specifications['participant-behavior'];
      spec.backend_feature_support_refs.push('autonomous_execution', 'temporal_contracts');
      // The example's red participant is evaluated: its policy declares the objective it serves.
      spec.autonomous_execution = {
        participant_implementation_ref: 'participant-agent-runner',
        clock_ref: 'exercise-clock',
        progression_policy_ref: 'exercise-stepping',
        temporal_constraint_refs: ['probe-cadence'],
        action_order: ['probe-customer-portal-login'],
        observation_boundary_ref: 'participant-view',
        max_action_attempts: 1,
        evaluation_authority: { mode: 'declared', objective_refs: ['demonstrate-handoff'] },
      };
      spec.tool_affordances = {
        'portal-client': {
          action_contract_refs: ['probe-customer-portal-login'],
          observation_boundary_refs: ['participant-view'],
        },
      };
    });
    const result = loadScenario(text);
    expect(result.diagnostics).toEqual([]);
    if (!result.ok) throw new Error('expected the scenario to compile');
    expect(result.compiled.toolAffordances.map((a) => a.address)).toEqual([AFFORDANCE_ADDRESS]);
    const [policy] = result.compiled.policies;
    expect(policy?.participantAddresses).toEqual([AGENT_ADDRESS]);
    const binding = result.compiled.affordanceBindings.find(
      (b) => b.tool_affordance_address === AFFORDANCE_ADDRESS && b.participant_address === AGENT_ADDRESS,
    );
    expect(binding?.target_addresses).toContain(PORTAL_HTTP);
    expect(binding?.observation_boundary_addresses).toEqual(['participant.observation-boundary.participant-view']);
  });
});

describe('loading the project example', () => {
  it('loads and compiles without diagnostics', () => {
    const result = loadScenario(readFileSync(PORTAL_PROBE_SCENARIO, 'utf8'));
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
  });
});

describe('bad input', () => {
  it('reports a YAML syntax error with its line, never throwing', () => {
    const result = loadScenario('name: x\nnodes: [unclosed\n');
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]?.code).toBe('scenario.yaml-invalid');
    expect(result.diagnostics[0]?.address).toMatch(/^line \d+, column \d+$/);
  });

  it('reports every shape problem and unknown key at once, each with its path', () => {
    const text = portalProbeWith((doc) => {
      doc.agents['participant-agent'].favourite_color = 'red';
      doc.behavior_specifications['participant-behavior'].autonomous_execution.max_action_attempts = 0;
      delete doc.behavior_specifications['participant-behavior'].tool_affordances['portal-client'].action_contract_refs;
      doc.scenery = {};
    });
    const result = loadScenario(text);
    expect(result.ok).toBe(false);
    const found = result.diagnostics.map((d) => [d.code, d.address]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['scenario.key-unknown', 'agents.participant-agent.favourite_color'],
        ['scenario.key-unknown', 'scenery'],
        ['scenario.shape-invalid', 'behavior_specifications.participant-behavior.autonomous_execution.max_action_attempts'],
        ['scenario.shape-invalid', 'behavior_specifications.participant-behavior.tool_affordances.portal-client.action_contract_refs'],
      ]),
    );
    expect(result.diagnostics).toHaveLength(4);
    const attempts = result.diagnostics.find((d) => d.address.endsWith('max_action_attempts'));
    expect(attempts?.message).toBe(
      'expected an integer from 1 to 1000000 at behavior_specifications.participant-behavior.autonomous_execution.max_action_attempts, got 0.',
    );
    const missing = result.diagnostics.find((d) => d.address.endsWith('action_contract_refs'));
    expect(missing?.message).toMatch(/^missing required field .*action_contract_refs: add a non-empty list of distinct action contract names\.$/);
    const unknown = result.diagnostics.find((d) => d.address === 'scenery');
    expect(unknown?.message).toMatch(/unknown key "scenery"; allowed keys here: .*behavior_specifications/);
  });

  it('names the profiles it knows when a policy claims another', () => {
    const result = loadScenario(
      portalProbeWith((doc) => {
        doc.behavior_specifications['participant-behavior'].autonomous_execution.profile = 'participant-autonomous-execution/v9';
      }),
    );
    expect(result.diagnostics.map((d) => [d.code, d.address, d.message])).toEqual([
      [
        'scenario.shape-invalid',
        'behavior_specifications.participant-behavior.autonomous_execution.profile',
        expect.stringMatching(/expected one of participant-autonomous-execution\/v1, participant-autonomous-execution\/v2, participant-autonomous-execution\/v3 at .*profile, got "participant-autonomous-execution\/v9"/),
      ],
    ]);
  });

  it('accepts the RAES sections it does not read, and refuses a section RAES does not know', () => {
    const accepted = loadScenario(portalProbeWith((doc) => (doc.time_domain_mappings = {})));
    expect(accepted.diagnostics).toEqual([]);
    const refused = loadScenario(portalProbeWith((doc) => (doc.tlos = {})));
    expect(refused.diagnostics.map((d) => [d.code, d.address])).toEqual([['scenario.key-unknown', 'tlos']]);
  });

  it('refuses a YAML merge key and an alias inside its own anchor, as RAES does, and loads other aliases', () => {
    const merged = loadScenario('name: merged\nnodes:\n  first:\n    type: vm\n    resources: &r {ram: 1 gib, cpu: 1}\n  second:\n    type: vm\n    resources:\n      <<: *r\n');
    expect(merged.diagnostics.map((d) => [d.code, d.address])).toEqual([['scenario.yaml-invalid', 'line 9, column 7']]);
    const cyclic = loadScenario('name: cyclic\nnodes: &n\n  sw:\n    type: switch\n    roles: *n\n');
    expect(cyclic.diagnostics.map((d) => [d.code, d.address])).toEqual([['scenario.yaml-invalid', 'line 5, column 12']]);
    const shared = loadScenario('name: shared\nnodes:\n  first:\n    type: vm\n    resources: &r {ram: 1 gib, cpu: 1}\n  second:\n    type: vm\n    resources: *r\n');
    expect(shared.diagnostics).toEqual([]);
  });

  it('rejects a document that is not a mapping', () => {
    const result = loadScenario('- just\n- a list\n');
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['scenario.shape-invalid']);
    expect(result.diagnostics[0]?.address).toBe('(document root)');
  });
});
