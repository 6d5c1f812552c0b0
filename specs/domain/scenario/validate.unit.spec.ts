import { DIAGNOSTIC_CODES, DiagnosticCode, loadScenario } from '../../../domain/scenario';
import { AFFORDANCE_ADDRESS, AFFORDANCE_REF, POLICY_ADDRESS, Yaml, portalProbeWith } from './scenario-fixtures';

const spec = (doc: Yaml): Yaml => doc.behavior_specifications['participant-behavior'];
const affordance = (doc: Yaml): Yaml => spec(doc).tool_affordances['portal-client'];
const policy = (doc: Yaml): Yaml => spec(doc).autonomous_execution;

/** A second agent, able to do everything the first can, outside the spec unless added. */
const addAgent = (doc: Yaml, name: string): void => {
  doc.agents[name] = { entity: 'portal-prober', actions: ['probe-customer-portal-login'], observation_boundaries: ['participant-view'] };
};
const addAction = (doc: Yaml, name: string): void => {
  doc.action_contracts[name] = { effects: [{ effect_id: 'e', target_refs: ['nodes.red-workbench'] }] };
};

/** One authoring mistake per scenario diagnostic code, each in the project's valid example. */
const cases: Record<string, { readonly text: string; readonly address: string; readonly message: RegExp }> = {
  'scenario.yaml-invalid': { text: 'name: [', address: 'line 1, column 8', message: /fix the YAML syntax/ },
  'scenario.input-out-of-bounds': { text: `name: ${'['.repeat(65)}${']'.repeat(65)}`, address: '(document)', message: /nests deeper than 64 levels at line 1: flatten it/ },
  'scenario.aliases-excessive': {
    text: `a: &a [x, x]\nb: [${Array.from({ length: 101 }, () => '*a').join(', ')}]\n`,
    address: '(document)',
    message: /expands its aliases more than 100 times/,
  },
  'scenario.shape-invalid': {
    text: portalProbeWith((doc) => {
      doc.temporal_constraints['probe-cadence'].cadence_ticks = 'two';
    }),
    address: 'temporal_constraints.probe-cadence.cadence_ticks',
    message: /expected an integer from 1 to 1000000000 at temporal_constraints\.probe-cadence\.cadence_ticks, got "two"/,
  },
  'scenario.key-unknown': {
    text: portalProbeWith((doc) => {
      affordance(doc).participants = ['participant-agent'];
    }),
    address: 'behavior_specifications.participant-behavior.tool_affordances.portal-client.participants',
    message: /unknown key "participants"; allowed keys here: .*participant_refs/,
  },
  'scenario.name-invalid': {
    text: portalProbeWith((doc) => {
      doc.clocks['Exercise Clock'] = {};
    }),
    address: 'clocks.Exercise Clock',
    message: /cannot be part of a compiled address/,
  },
  'scenario.reference-unresolved': {
    text: portalProbeWith((doc) => {
      affordance(doc).observation_boundary_refs = ['participant-veiw'];
    }),
    address: 'behavior_specifications.participant-behavior.tool_affordances.portal-client.observation_boundary_refs.0',
    message: /names observation boundary "participant-veiw", which is not declared .*declared: participant-view/,
  },
  'participant.tool-affordance-outside-specification': {
    text: portalProbeWith((doc) => {
      addAction(doc, 'reset-portal');
      doc.agents['participant-agent'].actions.push('reset-portal');
      affordance(doc).action_contract_refs.push('reset-portal');
    }),
    address: AFFORDANCE_ADDRESS,
    message: /"reset-portal" is not in behavior_specifications\.participant-behavior\.action_contract_refs; an affordance cannot widen/,
  },
  'participant.tool-affordance-outside-participant': {
    text: portalProbeWith((doc) => {
      addAction(doc, 'reset-portal');
      spec(doc).action_contract_refs.push('reset-portal');
      affordance(doc).action_contract_refs.push('reset-portal');
    }),
    address: AFFORDANCE_ADDRESS,
    message: /participant "participant-agent" cannot perform action contract "reset-portal"/,
  },
  'participant.tool-affordance-relation-duplicate': {
    text: portalProbeWith((doc) => {
      spec(doc).tool_affordances['portal-client-copy'] = {
        action_contract_refs: ['probe-customer-portal-login'],
        observation_boundary_refs: ['participant-view'],
      };
      const ref = 'behavior_specifications.participant-behavior.tool_affordances.portal-client-copy';
      doc.observation_boundaries['participant-view'].observable_refs.push(ref);
      doc.observation_boundaries['participant-view'].view_rules.push({ information_ref: ref, disposition: 'observable' });
    }),
    address: 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client-copy',
    message: /tool affordances "portal-client" and "portal-client-copy" both let participant "participant-agent" use action/,
  },
  'participant.tool-affordance-view-unclassified': {
    text: portalProbeWith((doc) => {
      const view = doc.observation_boundaries['participant-view'];
      view.view_rules = view.view_rules.filter((rule: Yaml) => rule.information_ref !== AFFORDANCE_REF);
    }),
    address: AFFORDANCE_ADDRESS,
    message: /does not classify "behavior_specifications\.participant-behavior\.tool_affordances\.portal-client": add it to the information_ref of one of its view_rules/,
  },
  'participant.tool-affordance-scope-outside-specification': {
    text: portalProbeWith((doc) => {
      addAgent(doc, 'bystander');
      affordance(doc).participant_refs = ['bystander'];
    }),
    address: AFFORDANCE_ADDRESS,
    message: /participant "bystander" .* is not a participant of behavior specification "participant-behavior"/,
  },
  'participant.tool-affordance-without-policy': {
    text: portalProbeWith((doc) => {
      delete spec(doc).autonomous_execution;
    }),
    address: AFFORDANCE_ADDRESS,
    message: /has no autonomous_execution/,
  },
  'participant.autonomous-execution-incomplete': {
    text: portalProbeWith((doc) => {
      delete policy(doc).clock_ref;
    }),
    address: POLICY_ADDRESS,
    message: /runs on a shared clock: set .*autonomous_execution\.clock_ref/,
  },
  'participant.autonomous-execution-outside-specification': {
    text: portalProbeWith((doc) => {
      addAction(doc, 'reset-portal');
      policy(doc).action_order.push('reset-portal');
    }),
    address: POLICY_ADDRESS,
    message: /action_order names "reset-portal", which is not in behavior_specifications\.participant-behavior\.action_contract_refs/,
  },
  'participant.autonomous-execution-cadence-invalid': {
    text: portalProbeWith((doc) => {
      doc.temporal_constraints['second-cadence'] = { constraint_kind: 'cadence', clock_ref: 'exercise-clock', cadence_ticks: 3 };
      policy(doc).temporal_constraint_refs.push('second-cadence');
    }),
    address: POLICY_ADDRESS,
    message: /needs exactly one cadence constraint .*found 2 \(probe-cadence, second-cadence\)/,
  },
  'participant.autonomous-execution-strategy-invalid': {
    text: portalProbeWith((doc) => {
      policy(doc).selection_strategy = 'weighted';
    }),
    address: POLICY_ADDRESS,
    message: /selection_strategy is "weighted", but a participant-autonomous-execution\/v1 policy selects its actions as "ordered_cycle"/,
  },
  'participant.autonomous-progression-clock-mismatch': {
    text: portalProbeWith((doc) => {
      doc.clocks['other-clock'] = { description: 'a second clock' };
      doc.time_progression_policies['exercise-stepping'].clock_ref = 'other-clock';
    }),
    address: POLICY_ADDRESS,
    message: /time progression policy "exercise-stepping" advances clock "other-clock" but the policy runs on "exercise-clock"/,
  },
  'participant.tool-affordance-tool-unresolved': {
    text: portalProbeWith((doc) => {
      affordance(doc).tool_ref = 'portal-clinet';
    }),
    address: 'behavior_specifications.participant-behavior.tool_affordances.portal-client.tool_ref',
    message: /tool_ref "portal-clinet" does not reference a declared scenario content identity \(declared: .*portal-client/,
  },
};

describe('one authoring mistake per diagnostic code', () => {
  it('covers every scenario and participant code', () => {
    const codes = DIAGNOSTIC_CODES.filter((c) => !c.startsWith('manifest.'));
    expect(Object.keys(cases).sort()).toEqual([...codes].sort());
  });

  it.each(Object.entries(cases))('%s', (code, { text, address, message }) => {
    const result = loadScenario(text);
    const found = result.diagnostics.filter((d) => d.code === (code as DiagnosticCode));
    expect(found).toHaveLength(1);
    expect(found[0]?.address).toBe(address);
    expect(found[0]?.message).toMatch(message);
    expect(result.ok).toBe(found[0]?.severity === 'warning');
  });
});

describe('the v1 policy and top level as RAES 3.3 accepts them', () => {
  it('loads the example, which declares time_domains, progression_policy_ref and selection_strategy', () => {
    const result = loadScenario(portalProbeWith(() => undefined));
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('refuses a v1 policy without progression_policy_ref, as RAES does, naming the field to set', () => {
    const result = loadScenario(
      portalProbeWith((doc) => {
        delete policy(doc).progression_policy_ref;
      }),
    );
    const found = result.diagnostics.filter((d) => d.code === 'participant.autonomous-execution-incomplete');
    expect(found).toHaveLength(1);
    expect(found[0]?.address).toBe(POLICY_ADDRESS);
    expect(found[0]?.message).toMatch(/set behavior_specifications\.participant-behavior\.autonomous_execution\.progression_policy_ref/);
    expect(result.ok).toBe(false);
  });

  it('refuses a progression_policy_ref that names no time progression policy', () => {
    const result = loadScenario(
      portalProbeWith((doc) => {
        policy(doc).progression_policy_ref = 'exercise-steping';
      }),
    );
    const found = result.diagnostics.filter((d) => d.code === 'scenario.reference-unresolved');
    expect(found.map((d) => d.address)).toEqual(['behavior_specifications.participant-behavior.autonomous_execution.progression_policy_ref']);
    expect(found[0]?.message).toMatch(/names time progression policy "exercise-steping".*declared: exercise-stepping/);
  });

  it('accepts a section-qualified tool_ref to declared content', () => {
    const result = loadScenario(
      portalProbeWith((doc) => {
        affordance(doc).tool_ref = 'content.portal-client';
      }),
    );
    expect(result.diagnostics).toEqual([]);
  });
});

describe('more rules', () => {
  it('reports every problem of a document together', () => {
    const text = portalProbeWith((doc) => {
      delete policy(doc).clock_ref;
      affordance(doc).observation_boundary_refs = ['participant-veiw'];
      doc.observation_boundaries['participant-view'].view_rules = [];
    });
    const codes = loadScenario(text).diagnostics.map((d) => d.code);
    expect(codes).toEqual(expect.arrayContaining(['scenario.reference-unresolved', 'participant.autonomous-execution-incomplete']));
  });

  it('asks for both the ref listing and the view rule when a boundary does not mention the affordance', () => {
    const text = portalProbeWith((doc) => {
      const view = doc.observation_boundaries['participant-view'];
      view.observable_refs = ['content.task-brief'];
      view.view_rules = view.view_rules.filter((rule: Yaml) => rule.information_ref !== AFFORDANCE_REF);
    });
    const [found] = loadScenario(text).diagnostics.filter((d) => d.code === 'participant.tool-affordance-view-unclassified');
    expect(found?.message).toMatch(/add it to its observable_refs, hidden_refs or evidence_refs and to the information_ref/);
  });

  it('accepts the classification in hidden or evidence refs with any disposition', () => {
    const text = portalProbeWith((doc) => {
      const view = doc.observation_boundaries['participant-view'];
      view.observable_refs = ['content.task-brief'];
      view.evidence_refs.push(AFFORDANCE_REF);
      view.view_rules.find((rule: Yaml) => rule.information_ref === AFFORDANCE_REF).disposition = 'evidence_only';
    });
    expect(loadScenario(text).diagnostics).toEqual([]);
  });

  it('flags an action listed twice in one affordance as a duplicate relation', () => {
    const text = portalProbeWith((doc) => {
      affordance(doc).action_contract_refs.push('action_contracts.probe-customer-portal-login');
    });
    const found = loadScenario(text).diagnostics.filter((d) => d.code === 'participant.tool-affordance-relation-duplicate');
    expect(found.map((d) => d.message)).toEqual([expect.stringMatching(/declares action "probe-customer-portal-login" through boundary "participant-view" twice/)]);
  });

  it('lets two affordances share a relation when their scopes do not overlap', () => {
    const text = portalProbeWith((doc) => {
      addAgent(doc, 'second-agent');
      spec(doc).participant_refs.push('second-agent');
      affordance(doc).participant_refs = ['participant-agent'];
      spec(doc).tool_affordances['second-client'] = {
        action_contract_refs: ['probe-customer-portal-login'],
        observation_boundary_refs: ['participant-view'],
        participant_refs: ['second-agent'],
      };
      const ref = 'behavior_specifications.participant-behavior.tool_affordances.second-client';
      doc.observation_boundaries['participant-view'].hidden_refs.push(ref);
      doc.observation_boundaries['participant-view'].view_rules.push({ information_ref: ref, disposition: 'hidden' });
    });
    expect(loadScenario(text).diagnostics).toEqual([]);
  });

  it('reports a cadence on another clock than the policy', () => {
    const text = portalProbeWith((doc) => {
      doc.clocks['other-clock'] = {};
      doc.temporal_constraints['probe-cadence'].clock_ref = 'other-clock';
    });
    const [found] = loadScenario(text).diagnostics;
    expect(found?.code).toBe('participant.autonomous-execution-cadence-invalid');
    expect(found?.message).toMatch(/runs on clock "other-clock" but the policy runs on "exercise-clock"/);
  });

  it('does not require a cadence of v2 and v3 policies', () => {
    for (const profile of ['participant-autonomous-execution/v2', 'participant-autonomous-execution/v3']) {
      const text = portalProbeWith((doc) => {
        policy(doc).profile = profile;
        delete policy(doc).temporal_constraint_refs;
        delete policy(doc).clock_ref;
      });
      const result = loadScenario(text);
      expect(result.diagnostics).toEqual([]);
      if (!result.ok) throw new Error('expected a compiled scenario');
      expect(result.compiled.policies[0]?.profile).toBe(profile);
      expect(result.compiled.policies[0]?.cadence).toBeUndefined();
    }
  });
});
