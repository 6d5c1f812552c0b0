import { DIAGNOSTIC_CODES, DiagnosticCode, loadScenario } from '../../../domain/scenario';
import { AFFORDANCE_ADDRESS, AFFORDANCE_REF, POLICY_ADDRESS, Yaml, activityPolicyOf, portalProbeWith } from './scenario-fixtures';

const spec = (doc: Yaml): Yaml => doc.behavior_specifications['participant-behavior'];
const affordance = (doc: Yaml): Yaml => spec(doc).tool_affordances['portal-client'];
const policy = (doc: Yaml): Yaml => spec(doc).autonomous_execution;

/** A second agent, able to do everything the first can, outside the spec unless added. */
const addAgent = (doc: Yaml, name: string): void => {
  doc.agents[name] = { entity: 'portal-prober', actions: ['probe-customer-portal-login'], observation_boundaries: ['participant-view'] };
};
const addAction = (doc: Yaml, name: string): void => {
  doc.action_contracts[name] = {
    semantic_version: '1.0.0',
    behavioral_granularity: 'atomic',
    procedure_basis: 'reset the portal',
    realization_profile: 'participant runtime',
    fidelity_claim: 'exact',
    preconditions: [{ precondition_id: 'portal-present', precondition_class: 'target', description: 'The portal exists.' }],
    effects: [{ effect_id: 'e', effect_class: 'side_effect', description: 'the portal restarts', target_refs: ['nodes.red-workbench'] }],
    failure_classes: ['unknown'],
  };
};
const viewRule = (ref: string, disposition: string) => ({
  information_ref: ref,
  boundary_class: 'tool_output',
  disposition,
  visibility_basis: 'authored',
});
const activityPolicy = activityPolicyOf;

/** One authoring mistake per scenario diagnostic code, each in the project's valid example. */
const cases: Record<string, { readonly text: string; readonly address: string; readonly message: RegExp }> = {
  'scenario.encoding-invalid': { text: 'name: caf\udce9\n', address: 'line 1, column 10', message: /not valid UTF-8 text .*save the file as UTF-8/ },
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
    message: /expected an integer from 1 to 9007199254740991 at temporal_constraints\.probe-cadence\.cadence_ticks, got "two"/,
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
      doc.clocks['Exercise Clock'] = { ...doc.clocks['exercise-clock'] };
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
  'scenario.reference-ambiguous': {
    text: portalProbeWith((doc) => {
      doc.features = { 'customer-portal': { type: 'service' } };
      doc.temporal_constraints['probe-cadence'].subject_refs = ['customer-portal'];
    }),
    address: 'temporal_constraints.probe-cadence.subject_refs.0',
    message: /"customer-portal" is ambiguous: use one of features\.customer-portal, nodes\.customer-portal/,
  },
  'scenario.content-incomplete': {
    text: portalProbeWith((doc) => {
      delete doc.content['participant-observation'].items;
    }),
    address: 'content.participant-observation',
    message: /dataset content "participant-observation" has neither a source nor items/,
  },
  'scenario.node-invalid': {
    text: portalProbeWith((doc) => {
      doc.nodes['core-switch'] = { type: 'switch', services: [{ name: 'ssh', port: 22 }] };
    }),
    address: 'nodes.core-switch',
    message: /switch node "core-switch" has services, which only a VM has/,
  },
  'scenario.source-invalid': {
    text: portalProbeWith((doc) => {
      doc.nodes['red-workbench'].source = {
        name: 'ubuntu',
        artifact_requirement: { requirement_id: 'base-image', explicitness: 'exact', permitted_routes: [{ mechanism: { mechanism: 'exact-artifact', profile: 'raes/exact', version: '1', digest: `sha256:${'a'.repeat(64)}` }, acquisition: 'pull', timing: 'realization' }] },
      };
    }),
    address: 'nodes.red-workbench.source.artifact_requirement',
    message: /an exact artifact requirement names its one immutable artifact/,
  },
  'scenario.view-rule-unclassified': {
    text: portalProbeWith((doc) => {
      doc.observation_boundaries['participant-view'].view_rules.push(viewRule('content.unlisted', 'hidden'));
    }),
    address: 'observation_boundaries.participant-view.view_rules.5.information_ref',
    message: /classifies "content\.unlisted", which the boundary does not list/,
  },
  'scenario.observation-boundary-invalid': {
    text: portalProbeWith((doc) => {
      doc.observation_boundaries['participant-view'].view_rules[0].disposition = 'disclosed';
    }),
    address: 'observation_boundaries.participant-view.view_rules.0',
    message: /a disclosed view rule needs a disclosure_rule/,
  },
  'scenario.action-contract-invalid': {
    text: portalProbeWith((doc) => {
      doc.action_contracts['probe-customer-portal-login'].backend_failure_mappings = [
        { backend_error_code: 'portal.locked', failure_class: 'authority_denied', diagnostic: 'the portal locked the account' },
      ];
    }),
    address: 'action_contracts.probe-customer-portal-login.backend_failure_mappings.0.failure_class',
    message: /maps to failure class authority_denied, which action contract "probe-customer-portal-login" does not declare .*add it to action_contracts\.probe-customer-portal-login\.failure_classes/,
  },
  'scenario.behavior-specification-invalid': {
    text: portalProbeWith((doc) => {
      spec(doc).extension_policy = 'closed';
      spec(doc).extensions = { 'x-acme:probe-depth': 2 };
    }),
    address: 'behavior_specifications.participant-behavior.extensions',
    message: /declares extension_policy closed, which allows no extensions, yet lists x-acme:probe-depth/,
  },
  'time.model-invalid': {
    text: portalProbeWith((doc) => {
      doc.time_progression_policies['second-progression'] = { ...doc.time_progression_policies['exercise-stepping'] };
    }),
    address: 'time_progression_policies.second-progression.clock_ref',
    message: /clock "exercise-clock" already has progression policy "exercise-stepping"/,
  },
  'participant.behavior-specification-term-ungoverned': {
    text: portalProbeWith((doc) => {
      spec(doc).behavior_mode = 'freestyle';
    }),
    address: 'participant.behavior-specification.participant-behavior',
    message: /behavior_mode "freestyle" is not a participant decision-surface mode/,
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
      doc.observation_boundaries['participant-view'].view_rules.push(viewRule(ref, 'observable'));
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
      spec(doc).backend_feature_support_refs = spec(doc).backend_feature_support_refs.filter((f: string) => f !== 'temporal_contracts');
    }),
    address: POLICY_ADDRESS,
    message: /needs backend feature "temporal_contracts": add it to behavior_specifications\.participant-behavior\.backend_feature_support_refs/,
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
      doc.temporal_constraints['second-cadence'] = { ...doc.temporal_constraints['probe-cadence'], cadence_ticks: 3 };
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
      doc.clocks['other-clock'] = { ...doc.clocks['exercise-clock'], description: 'a second clock' };
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
  'participant.autonomous-execution-outside-participant': {
    text: portalProbeWith((doc) => {
      addAction(doc, 'reset-portal');
      spec(doc).action_contract_refs.push('reset-portal');
      policy(doc).action_order.push('reset-portal');
    }),
    address: POLICY_ADDRESS,
    message: /participant "participant-agent" cannot perform "reset-portal" \(not in agents\.participant-agent\.actions\)/,
  },
  'participant.autonomous-execution-progression-invalid': {
    text: portalProbeWith((doc) => {
      doc.time_progression_policies['exercise-stepping'].advancement_mode = 'externally_paced';
    }),
    address: POLICY_ADDRESS,
    message: /progression policy "exercise-stepping" is externally paced/,
  },
  'participant.autonomous-execution-evaluation-invalid': {
    text: portalProbeWith((doc) => {
      doc.entities['portal-prober'].role = 'red';
    }),
    address: POLICY_ADDRESS,
    message: /participant "participant-agent" runs without evaluation authority, which RAES allows only to the green role \(its entity's role is red\)/,
  },
  'participant.autonomous-execution-owner-conflict': {
    text: portalProbeWith((doc) => {
      const second = { ...spec(doc) };
      delete second.tool_affordances;
      doc.behavior_specifications['second-behavior'] = second;
    }),
    address: 'participant.autonomous-execution.second-behavior',
    message: /participant "participant-agent" is already run by the policy of behavior specification "participant-behavior"/,
  },
  'participant.autonomous-execution-activity-invalid': {
    text: portalProbeWith((doc) => {
      activityPolicy(doc, 'participant-autonomous-execution/v2');
      policy(doc).max_occurrences = 4;
    }),
    address: POLICY_ADDRESS,
    message: /max_occurrences exceeds max_action_attempts/,
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
      spec(doc).backend_feature_support_refs = [];
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
      // An evidence_only view rule names the evidence that carries it, as RAES requires.
      Object.assign(
        view.view_rules.find((rule: Yaml) => rule.information_ref === AFFORDANCE_REF),
        { disposition: 'evidence_only', evidence_refs: ['content.participant-observation'] },
      );
    });
    expect(loadScenario(text).diagnostics).toEqual([]);
  });

  it('refuses an action listed twice in one affordance, as RAES refuses repeated refs', () => {
    const text = portalProbeWith((doc) => {
      affordance(doc).action_contract_refs.push('probe-customer-portal-login');
    });
    const result = loadScenario(text);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => [d.code, d.address])).toEqual([
      ['scenario.shape-invalid', 'behavior_specifications.participant-behavior.tool_affordances.portal-client.action_contract_refs'],
    ]);
  });

  it('resolves refs by bare name, as RAES does: a section-qualified action ref names nothing', () => {
    const text = portalProbeWith((doc) => {
      affordance(doc).action_contract_refs = ['action_contracts.probe-customer-portal-login'];
    });
    const found = loadScenario(text).diagnostics.filter((d) => d.code === 'scenario.reference-unresolved');
    expect(found.map((d) => d.address)).toEqual(['behavior_specifications.participant-behavior.tool_affordances.portal-client.action_contract_refs.0']);
  });

  it('refuses two affordances with the same tool, actions and boundaries even without participants', () => {
    const text = portalProbeWith((doc) => {
      spec(doc).participant_refs = [];
      delete spec(doc).autonomous_execution;
      spec(doc).tool_affordances['portal-client-copy'] = { ...affordance(doc) };
      const ref = 'behavior_specifications.participant-behavior.tool_affordances.portal-client-copy';
      doc.observation_boundaries['participant-view'].observable_refs.push(ref);
      doc.observation_boundaries['participant-view'].view_rules.push(viewRule(ref, 'observable'));
    });
    const found = loadScenario(text).diagnostics.filter((d) => d.code === 'participant.tool-affordance-relation-duplicate');
    expect(found.map((d) => d.message)).toEqual([expect.stringMatching(/"portal-client" and "portal-client-copy" declare the same tool, actions and boundaries/)]);
  });

  it('requires a tool_ref to name content, not another kind of declaration', () => {
    const found = loadScenario(portalProbeWith((doc) => (affordance(doc).tool_ref = 'customer-portal'))).diagnostics;
    expect(found.map((d) => d.message)).toEqual([expect.stringMatching(/names node nodes\.customer-portal, but must resolve through the scenario-content tools-and-artifacts reference model/)]);
  });

  it('requires progression_policy_ref on a v1 policy, as RAES does', () => {
    const result = loadScenario(portalProbeWith((doc) => delete policy(doc).progression_policy_ref));
    expect(result.diagnostics.map((d) => [d.code, d.address])).toEqual([
      ['participant.autonomous-execution-incomplete', 'participant.autonomous-execution.participant-behavior'],
    ]);
  });

  it('reports a cadence the stepped progression never reaches', () => {
    const text = portalProbeWith((doc) => {
      doc.time_progression_policies['exercise-stepping'].step_ticks = 4;
    });
    const [found] = loadScenario(text).diagnostics;
    expect(found?.code).toBe('participant.autonomous-execution-cadence-invalid');
    expect(found?.message).toMatch(/not reachable by stepped progression "exercise-stepping"/);
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
      doc.observation_boundaries['participant-view'].view_rules.push(viewRule(ref, 'hidden'));
    });
    expect(loadScenario(text).diagnostics).toEqual([]);
  });

  it('reports a cadence on another clock than the policy', () => {
    const text = portalProbeWith((doc) => {
      doc.clocks['other-clock'] = { ...doc.clocks['exercise-clock'] };
      doc.temporal_constraints['probe-cadence'].clock_ref = 'other-clock';
    });
    const [found] = loadScenario(text).diagnostics;
    expect(found?.code).toBe('participant.autonomous-execution-cadence-invalid');
    expect(found?.message).toMatch(/runs on clock "other-clock" but the policy runs on "exercise-clock"/);
  });

  it('does not require a cadence of v2 and v3 policies', () => {
    for (const profile of ['participant-autonomous-execution/v2', 'participant-autonomous-execution/v3']) {
      const text = portalProbeWith((doc) => activityPolicy(doc, profile));
      const result = loadScenario(text);
      expect(result.diagnostics).toEqual([]);
      if (!result.ok) throw new Error('expected a compiled scenario');
      expect(result.compiled.policies[0]?.profile).toBe(profile);
      expect(result.compiled.policies[0]?.cadence).toBeUndefined();
    }
  });
});

describe("evaluation authority refs, blank as Python's strip() reads them", () => {
  const BLANK_REFS = 'behavior_specifications.participant-behavior.autonomous_execution.evaluation_authority.objective_refs must list distinct, non-blank refs.';
  const refusals = (refs: string[]) =>
    loadScenario(
      portalProbeWith((doc) => {
        policy(doc).evaluation_authority = { mode: 'declared', objective_refs: refs };
      }),
    )
      .diagnostics.filter((d) => d.code === 'participant.autonomous-execution-evaluation-invalid')
      .map((d) => ({ address: d.address, message: d.message }));

  it('refuses a ref of U+0085 (white space to Python), and takes one of U+FEFF (not white space to Python), as RAES does', () => {
    expect(refusals(['\u0085'])).toEqual([{ address: POLICY_ADDRESS, message: BLANK_REFS }]);
    expect(refusals(['\ufeff'])).toEqual([]);
  });
});
