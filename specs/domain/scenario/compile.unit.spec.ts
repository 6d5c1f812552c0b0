import {
  CompiledScenario,
  actionContractAt,
  bindingsOfAffordance,
  loadScenario,
  observationBoundaryAt,
  policyAt,
} from '../../../domain/scenario';
import { AFFORDANCE_ADDRESS, AGENT_ADDRESS, PORTAL_HTTP, POLICY_ADDRESS, Yaml, pacingDisclosure, portalProbeWith, scheduleTemporalContract } from './scenario-fixtures';

const compile = (text: string): CompiledScenario => {
  const result = loadScenario(text);
  if (!result.ok) throw new Error(`expected a compiled scenario, got ${JSON.stringify(result.diagnostics)}`);
  return result.compiled;
};

const spec = (doc: Yaml): Yaml => doc.behavior_specifications['participant-behavior'];
const PROBE = 'participant.action-contract.probe-customer-portal-login';

/** Adds agents with the same abilities as participant-agent, entity role `role`. */
const addAgents = (doc: Yaml, names: string[], role: string): void => {
  doc.entities[`${role}-team`] = { role };
  for (const name of names) {
    doc.agents[name] = { entity: `${role}-team`, actions: ['probe-customer-portal-login'], observation_boundaries: ['participant-view'] };
  }
};

describe('compiling the project example', () => {
  const compiled = compile(portalProbeWith(() => undefined));

  it('compiles the v1 policy with everything the runtime manager needs', () => {
    expect(compiled.policies).toEqual([
      {
        address: POLICY_ADDRESS,
        specificationAddress: 'participant.behavior-specification.participant-behavior',
        participantAddresses: [AGENT_ADDRESS],
        implementationRef: 'participant-agent-runner',
        actionOrder: [PROBE],
        observationBoundaryAddress: 'participant.observation-boundary.participant-view',
        maxActionAttempts: 3,
        maxInFlight: 1,
        failurePolicy: 'stop',
        evaluationAuthority: { mode: 'none' },
        profile: 'participant-autonomous-execution/v1',
        clockAddress: 'time.clock.exercise-clock',
        cadence: { constraintAddress: 'time.constraint.probe-cadence', cadenceTicks: 2, startTick: 0 },
      },
    ]);
  });

  it('compiles one binding for the affordance, its action and the participant', () => {
    expect(compiled.affordanceBindings).toEqual([
      {
        tool_affordance_address: AFFORDANCE_ADDRESS,
        action_contract_address: PROBE,
        participant_address: AGENT_ADDRESS,
        observation_boundary_addresses: ['participant.observation-boundary.participant-view'],
        target_addresses: [PORTAL_HTTP],
      },
    ]);
    expect(compiled.observationBoundaries[0]?.evidenceRefs).toEqual(['content.participant-observation']);
  });

  it('does not count the action scheduled by the policy as shared-time bound', () => {
    expect(compiled.sharedTimeBoundActions).toEqual([]);
    expect(compiled.actionContracts[0]?.sharedTimeBound).toBe(false);
  });
});

describe('defaults of a policy', () => {
  it('defaults profile v1, one in flight, stop on failure and a cadence from tick 0', () => {
    const compiled = compile(
      portalProbeWith((doc) => {
        const policy = spec(doc).autonomous_execution;
        delete policy.profile;
        delete policy.selection_strategy;
        delete policy.max_in_flight;
        delete policy.failure_policy;
        doc.temporal_constraints['probe-cadence'].start = undefined;
      }),
    );
    const [policy] = compiled.policies;
    expect(policy?.profile).toBe('participant-autonomous-execution/v1');
    expect(policy?.maxInFlight).toBe(1);
    expect(policy?.failurePolicy).toBe('stop');
    expect(policy?.evaluationAuthority).toEqual({ mode: 'none' });
    expect(policy?.cadence?.startTick).toBe(0);
  });
});

describe('targets an action contract authors', () => {
  it('takes effect targets, then precondition supports, resolved, de-duplicated, dropping what does not resolve once', () => {
    const compiled = compile(
      portalProbeWith((doc) => {
        doc.nodes['backup-portal'] = { type: 'vm', services: [{ name: 'http', port: 80 }, { name: 'admin', port: 9000 }] };
        const probe = doc.action_contracts['probe-customer-portal-login'];
        const effect = { effect_class: 'intended_effect', description: 'reached' };
        const precondition = { precondition_class: 'target', description: 'present' };
        probe.effects = [
          { effect_id: 'a', ...effect, target_refs: ['nodes.customer-portal.services.http', 'content.task-brief'] },
          { effect_id: 'b', ...effect, target_refs: ['admin', 'http', 'nodes.customer-portal.services.http'] },
        ];
        probe.preconditions = [
          { precondition_id: 'c', ...precondition, support_refs: ['red-workbench', 'agents.participant-agent', 'content.nowhere', 'nodes.ghost'] },
          { precondition_id: 'd', ...precondition, support_refs: ['nodes.backup-portal', 'nodes.customer-portal.services.ftp'] },
        ];
      }),
    );
    expect(compiled.actionContracts[0]?.targetAddresses).toEqual([
      PORTAL_HTTP,
      'provision.content.task-brief',
      'provision.node.backup-portal.service.admin',
      'provision.node.red-workbench',
      'provision.node.backup-portal',
    ]);
  });
});

describe('participants of an affordance', () => {
  const withTeam = (scope: string[] | undefined): CompiledScenario =>
    compile(
      portalProbeWith((doc) => {
        addAgents(doc, ['second-agent', 'third-agent'], 'green');
        spec(doc).participant_role_refs = ['green'];
        if (scope !== undefined) spec(doc).tool_affordances['portal-client'].participant_refs = scope;
      }),
    );

  it('takes the participants of its specification (named, then by role) when unscoped', () => {
    const compiled = withTeam(undefined);
    const [affordance] = compiled.toolAffordances;
    expect(affordance?.scoped).toBe(false);
    expect(affordance?.participantAddresses).toEqual([
      AGENT_ADDRESS,
      'participant.behavior.second-agent',
      'participant.behavior.third-agent',
    ]);
    expect(compiled.affordanceBindings.map((b) => b.participant_address)).toEqual(affordance?.participantAddresses);
  });

  it('takes only its scope when scoped', () => {
    const compiled = withTeam(['third-agent']);
    expect(compiled.toolAffordances[0]?.scoped).toBe(true);
    expect(compiled.affordanceBindings.map((b) => b.participant_address)).toEqual(['participant.behavior.third-agent']);
  });

  it('gives the policy only the named participants of its specification', () => {
    expect(withTeam(undefined).policies[0]?.participantAddresses).toEqual([AGENT_ADDRESS]);
  });

  it('makes one binding per action contract and participant', () => {
    const compiled = compile(
      portalProbeWith((doc) => {
        addAgents(doc, ['second-agent'], 'green');
        spec(doc).participant_refs.push('second-agent');
        doc.action_contracts['read-banner'] = {
          semantic_version: '1.0.0',
          behavioral_granularity: 'atomic',
          procedure_basis: 'read the portal banner',
          realization_profile: 'participant runtime',
          fidelity_claim: 'exact',
          preconditions: [{ precondition_id: 'portal-present', precondition_class: 'target', description: 'The portal exists.' }],
          effects: [{ effect_id: 'e', effect_class: 'observation_effect', description: 'banner read', target_refs: ['nodes.customer-portal'] }],
          failure_classes: ['unknown'],
        };
        for (const agent of ['participant-agent', 'second-agent']) doc.agents[agent].actions.push('read-banner');
        spec(doc).action_contract_refs.push('read-banner');
        spec(doc).tool_affordances['portal-client'].action_contract_refs.push('read-banner');
      }),
    );
    expect(compiled.affordanceBindings.map((b) => [b.action_contract_address, b.participant_address, b.target_addresses])).toEqual([
      [PROBE, AGENT_ADDRESS, [PORTAL_HTTP]],
      [PROBE, 'participant.behavior.second-agent', [PORTAL_HTTP]],
      ['participant.action-contract.read-banner', AGENT_ADDRESS, ['provision.node.customer-portal']],
      ['participant.action-contract.read-banner', 'participant.behavior.second-agent', ['provision.node.customer-portal']],
    ]);
  });
});

describe('shared-time bindings', () => {
  it('binds an action named as a temporal constraint subject, bare or qualified', () => {
    for (const ref of ['probe-customer-portal-login', 'action_contracts.probe-customer-portal-login']) {
      const compiled = compile(
        portalProbeWith((doc) => {
          doc.temporal_constraints['probe-window'] = { constraint_kind: 'window', clock_ref: 'exercise-clock', subject_refs: [ref], description: 'probe window' };
        }),
      );
      expect(compiled.sharedTimeBoundActions).toEqual([PROBE]);
      expect(compiled.actionContracts[0]?.sharedTimeBound).toBe(true);
    }
  });

  it('binds an action that declares temporal contracts', () => {
    const compiled = compile(
      portalProbeWith((doc) => {
        doc.action_contracts['probe-customer-portal-login'].temporal_contracts = [scheduleTemporalContract()];
        doc.action_contracts['probe-customer-portal-login'].backend_timing_disclosures = [pacingDisclosure()];
      }),
    );
    expect(compiled.sharedTimeBoundActions).toEqual([PROBE]);
  });
});

describe('look-ups by address', () => {
  const compiled = compile(portalProbeWith(() => undefined));

  it('finds the policy, contract, boundary and bindings of the example', () => {
    expect(policyAt(compiled, POLICY_ADDRESS)?.implementationRef).toBe('participant-agent-runner');
    expect(policyAt(compiled, 'participant.autonomous-execution.other')).toBeUndefined();
    expect(actionContractAt(compiled, PROBE)?.targetAddresses).toEqual([PORTAL_HTTP]);
    expect(observationBoundaryAt(compiled, 'participant.observation-boundary.participant-view')?.evidenceRefs).toEqual([
      'content.participant-observation',
    ]);
    expect(bindingsOfAffordance(compiled, AFFORDANCE_ADDRESS).map((b) => b.participant_address)).toEqual([AGENT_ADDRESS]);
  });
});
