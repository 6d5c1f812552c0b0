import { Yaml, portalProbeWith, errorDiagnostics, expectedDiagnostic } from './scenario-fixtures';

/**
 * A behavior specification's mixed_control and participant_inject_deliveries as RAES 3.3's models type
 * and check them (raes/participant_behavior_specification.py: MixedControlParticipantOperation and its
 * controller states and transitions; raes/participant_inject_delivery.py: ParticipantInjectDelivery).
 * The example's specification gets a mixed_control and two deliveries RAES's models accept; every
 * refusal and acceptance below was checked against RAES's own models.
 */

const SPEC = 'participant-behavior';
const AT = `behavior_specifications.${SPEC}`;
const MC = `${AT}.mixed_control`;
const DL = `${AT}.participant_inject_deliveries`;

const controllerState = (controller: string): Yaml => ({
  controller_ref: controller,
  authority_basis_refs: [`authority.${controller}`],
  scope_refs: ['scope.portal'],
  policy_revision: '1.0.0',
  valid_from_order: 0,
  valid_until_order: 100,
  authority_status: 'active',
  evidence_refs: [`evidence.${controller}`],
});
/** The agent proposes (revision 0 to 1), the operator approves the proposal (1 to 2). */
const mixedControl = (): Yaml => ({
  participant_ref: 'participant-agent',
  policy_revision: '1.0.0',
  order_strategy: 'total-effective-order',
  initial_state_ref: 'agent-control',
  dispositions: {
    duplicate: 'idempotent-if-equivalent',
    stale: 'reject-no-state-change',
    revoked: 'reject-no-state-change',
    late: 'reject-no-state-change',
    concurrent: 'order-then-revalidate',
    conflict: 'reject-no-state-change',
  },
  controller_states: { 'agent-control': controllerState('participant-agent'), 'operator-control': controllerState('operator') },
  transitions: {
    propose: {
      transition_kind: 'proposal',
      from_state_ref: 'agent-control',
      to_state_ref: 'agent-control',
      policy_revision: '1.0.0',
      expected_state_revision: 0,
      resulting_state_revision: 1,
      effective_order: 1,
      valid_from_order: 0,
      valid_until_order: 10,
      evidence_refs: ['evidence.proposal'],
    },
    approve: {
      transition_kind: 'approval',
      from_state_ref: 'agent-control',
      to_state_ref: 'operator-control',
      policy_revision: '1.0.0',
      expected_state_revision: 1,
      resulting_state_revision: 2,
      effective_order: 2,
      valid_from_order: 0,
      valid_until_order: 10,
      proposal_ref: 'propose',
      proposal_revision: 1,
      evidence_refs: ['evidence.approval'],
    },
  },
});
/** A disclosure: it carries no control agreement. */
const disclosure = (): Yaml => ({
  participant_ref: 'participant-agent',
  inject_ref: 'injects.brief-update',
  occurrence: { event_ref: 'events.brief', script_ref: 'scripts.main', story_ref: 'stories.exercise' },
  source_item_ref: 'content.task-brief',
  result_item_ref: 'content.participant-observation',
  observation_boundary_ref: 'participant-view',
  delivery_kind: 'disclosure',
  delivery_policy: {
    policy_ref: 'policy.delivery',
    policy_revision: '1',
    exposure_policy_ref: 'exposure.default',
    audience_scope_ref: 'audience.participant',
    visibility_basis_ref: 'visibility.brief',
    disclosure_basis_ref: 'disclosure.brief',
  },
  order_basis: 'orchestration-occurrence-and-shared-time',
  temporal_constraint_refs: ['probe-cadence'],
  evidence_requirement_refs: ['evidence.delivery'],
  failure_disposition: 'reject-no-delivery',
});
/** An intervention: it carries a complete control agreement. */
const intervention = (): Yaml => ({
  ...disclosure(),
  delivery_kind: 'intervention',
  control_transition_ref: 'approve',
  controller_ref: 'operator',
  control_authority_scope_refs: ['scope.portal'],
  control_effective_order: 2,
  control_valid_from_order: 0,
  control_valid_until_order: 10,
  control_evidence_refs: ['evidence.approval'],
});

const specification = (doc: Yaml): Yaml => doc.behavior_specifications[SPEC];
const withBoth = (doc: Yaml): void => {
  specification(doc).behavior_mode = 'mixed-control';
  specification(doc).mixed_control = mixedControl();
  specification(doc).participant_inject_deliveries = { brief: disclosure(), direct: intervention() };
};
const control = (doc: Yaml): Yaml => specification(doc).mixed_control;
const state = (doc: Yaml, id: string): Yaml => control(doc).controller_states[id];
const transition = (doc: Yaml, id: string): Yaml => control(doc).transitions[id];
const delivery = (doc: Yaml, id: string): Yaml => specification(doc).participant_inject_deliveries[id];

const errorsOfText = (text: string) =>
  errorDiagnostics(text);
const errorsOf = (edit: (doc: Yaml) => void) =>
  errorsOfText(
    portalProbeWith((doc) => {
      withBoth(doc);
      edit(doc);
    }),
  );
/** The scenario with both, where the value written `from` at the end of a line is written `to` instead (a number as RAES's YAML reads it). */
const writtenAs = (edit: (doc: Yaml) => void, from: string, to: string): string => {
  const text = portalProbeWith((doc) => {
    withBoth(doc);
    edit(doc);
  });
  const written = text.replace(`: ${from}\n`, `: ${to}\n`);
  expect(written).not.toEqual(text);
  return written;
};
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', address, message);
const invalid = (address: string, message: string) => ({ code: 'scenario.behavior-specification-invalid', address, message });

describe('mixed_control: its fields', () => {
  it('accepts the fixture, and null for absent under another behavior_mode', () => {
    expect(errorsOf(() => undefined)).toEqual([]);
    expect(
      errorsOf((doc) => {
        specification(doc).mixed_control = null;
        specification(doc).behavior_mode = 'autonomous';
      }),
    ).toEqual([]);
  });

  it('pairs a mixed_control with behavior_mode mixed-control, as RAES\'s validator requires', () => {
    expect(errorsOf((doc) => (specification(doc).behavior_mode = 'autonomous'))).toEqual([
      invalid(AT, `a mixed_control needs behavior_mode mixed-control: set ${AT}.behavior_mode to mixed-control, or remove ${AT}.mixed_control.`),
    ]);
    expect(errorsOf((doc) => (specification(doc).mixed_control = null))).toEqual([
      invalid(AT, `behavior_mode mixed-control needs a mixed_control: declare ${AT}.mixed_control, or choose another mode.`),
    ]);
  });

  it("binds one of the specification's participants at its semantic_version, as RAES's validator requires", () => {
    expect(errorsOf((doc) => (control(doc).participant_ref = 'someone-else'))).toEqual([
      invalid(AT, `the mixed_control binds participant "someone-else", which is not in ${AT}.participant_refs: bind one of the specification's participants.`),
    ]);
    expect(errorsOf((doc) => (specification(doc).semantic_version = '2.0.0'))).toEqual([
      invalid(AT, 'the mixed_control is at policy revision "1.0.0", not the specification\'s semantic_version "2.0.0": make them equal.'),
    ]);
  });

  it('refuses blank texts (U+0085 is white space), unknown orders and dispositions, and names that are not portable identifiers', () => {
    expect(errorsOf((doc) => (control(doc).participant_ref = '\u0085'))).toEqual([shape(`${MC}.participant_ref`, 'expected a non-blank string')]);
    expect(errorsOf((doc) => (control(doc).order_strategy = 'total_effective_order'))).toEqual([shape(`${MC}.order_strategy`, 'expected one of total-effective-order')]);
    expect(errorsOf((doc) => (control(doc).dispositions.stale = 'idempotent-if-equivalent'))).toEqual([shape(`${MC}.dispositions.stale`, 'expected one of reject-no-state-change')]);
    expect(errorsOf((doc) => (control(doc).initial_state_ref = 'Agent'))).toEqual([shape(`${MC}.initial_state_ref`, 'expected a portable identifier')]);
    expect(errorsOf((doc) => (control(doc).controller_states.Ops = controllerState('operator')))).toEqual([
      shape(`${MC}.controller_states.Ops`, `the name "Ops" at ${MC}.controller_states.Ops is not a portable identifier`),
    ]);
    expect(errorsOf((doc) => (transition(doc, 'approve').from_state_ref = 'Agent'))).toEqual([shape(`${MC}.transitions.approve.from_state_ref`, 'expected a portable identifier')]);
  });

  it("requires a controller state's ref lists non-empty, distinct and non-blank, and its controller_ref non-blank", () => {
    expect(errorsOf((doc) => (state(doc, 'agent-control').scope_refs = []))).toEqual([shape(`${MC}.controller_states.agent-control.scope_refs`, 'expected a non-empty list of distinct, non-blank refs')]);
    expect(errorsOf((doc) => (state(doc, 'agent-control').evidence_refs = ['a', 'a']))).toEqual([shape(`${MC}.controller_states.agent-control.evidence_refs`)]);
    expect(errorsOf((doc) => (state(doc, 'agent-control').controller_ref = ' '))).toEqual([shape(`${MC}.controller_states.agent-control.controller_ref`, 'expected a non-blank string')]);
    expect(errorsOf((doc) => (state(doc, 'agent-control').authority_status = 'Active'))).toEqual([shape(`${MC}.controller_states.agent-control.authority_status`, 'expected one of active, revoked')]);
  });

  it('takes orders and revisions only as integers written as integers (strict), of any size', () => {
    const at = `${MC}.controller_states.agent-control.valid_from_order`;
    for (const value of ['0', false, -1]) {
      expect(errorsOf((doc) => (state(doc, 'agent-control').valid_from_order = value))).toEqual([shape(at, `expected an integer >= 0 at ${at}`)]);
    }
    expect(errorsOfText(writtenAs((doc) => (state(doc, 'agent-control').valid_from_order = 7), '7', '0.0'))).toEqual([
      shape(at, `expected an integer at ${at}, got 0.0, which RAES reads as a float: write it as a whole number, without a fraction or exponent.`),
    ]);
    expect(errorsOf((doc) => (transition(doc, 'propose').resulting_state_revision = 0))).toEqual([shape(`${MC}.transitions.propose.resulting_state_revision`, 'expected an integer >= 1')]);
    expect(errorsOfText(writtenAs((doc) => (state(doc, 'agent-control').valid_until_order = 7), '7', '1180591620717411303424'))).toEqual([]);
  });

  it("refuses a transition without evidence_refs, and a blank completion evidence ref", () => {
    expect(errorsOf((doc) => delete transition(doc, 'propose').evidence_refs)).toEqual([shape(`${MC}.transitions.propose.evidence_refs`, 'missing required field')]);
    expect(errorsOf((doc) => (transition(doc, 'propose').completion_evidence_refs = [' ']))).toEqual([shape(`${MC}.transitions.propose.completion_evidence_refs`, 'expected a list of distinct, non-blank refs')]);
  });
});

describe('mixed_control: a controller state and a transition on their own', () => {
  it('refuses an inverted validity interval of a controller state', () => {
    expect(errorsOf((doc) => (state(doc, 'agent-control').valid_from_order = 101))).toEqual([
      invalid(`${MC}.controller_states.agent-control`, 'controller state "agent-control" is valid until order 100, before its valid_from_order 101: correct the interval.'),
    ]);
  });

  it('requires evidence of a transition, an interval holding its effective_order, and one step of revision', () => {
    const at = `${MC}.transitions.propose`;
    expect(errorsOf((doc) => (transition(doc, 'propose').evidence_refs = []))).toEqual([
      invalid(at, `mixed-control transition "propose" needs evidence_refs: list the evidence of the decision in ${at}.evidence_refs.`),
    ]);
    expect(errorsOf((doc) => (transition(doc, 'propose').valid_from_order = 11))).toEqual([
      invalid(at, 'mixed-control transition "propose" is valid until order 10, before its valid_from_order 11: correct the interval.'),
    ]);
    expect(errorsOf((doc) => (transition(doc, 'propose').valid_from_order = 2))).toEqual([
      invalid(at, 'mixed-control transition "propose" takes effect at order 1, outside its validity 2 to 10: move effective_order into the interval or widen it.'),
    ]);
    expect(errorsOf((doc) => (transition(doc, 'propose').resulting_state_revision = 2))).toEqual(
      expect.arrayContaining([
        invalid(at, 'mixed-control transition "propose" moves the state revision from 0 to 2: a transition advances it by exactly one, so set resulting_state_revision to 1.'),
      ]),
    );
  });

  it('pairs proposal_ref with proposal_revision, requires them of an answer to a proposal, and refuses them on a proposal', () => {
    const at = `${MC}.transitions.approve`;
    expect(errorsOf((doc) => delete transition(doc, 'approve').proposal_revision)).toEqual([
      invalid(at, 'mixed-control transition "approve" gives proposal_ref without proposal_revision: give both or neither.'),
    ]);
    expect(
      errorsOf((doc) => {
        delete transition(doc, 'approve').proposal_revision;
        delete transition(doc, 'approve').proposal_ref;
      }),
    ).toEqual([invalid(at, `an approval transition answers a proposal: set ${at}.proposal_ref and proposal_revision.`)]);
    expect(
      errorsOf((doc) => {
        transition(doc, 'propose').proposal_ref = 'approve';
        transition(doc, 'propose').proposal_revision = 2;
      }),
    ).toEqual(expect.arrayContaining([invalid(`${MC}.transitions.propose`, `a proposal transition cannot answer another proposal: remove ${MC}.transitions.propose.proposal_ref and proposal_revision.`)]));
  });

  it('requires completion_evidence_refs of a handoff', () => {
    const at = `${MC}.transitions.approve`;
    const handoff = (doc: Yaml) => Object.assign(transition(doc, 'approve'), { transition_kind: 'handoff', proposal_ref: null, proposal_revision: null });
    expect(errorsOf(handoff)).toEqual([
      invalid(at, `a handoff transition needs completion_evidence_refs: list the evidence that the handoff completed in ${at}.completion_evidence_refs.`),
    ]);
    expect(errorsOf((doc) => (handoff(doc).completion_evidence_refs = ['evidence.done']))).toEqual([]);
  });
});

describe('mixed_control: how its states and transitions fit', () => {
  it('requires controller states, transitions and a declared initial state', () => {
    expect(errorsOf((doc) => (control(doc).transitions = {}))).toEqual([invalid(MC, `mixed_control needs transitions: declare them in ${MC}.transitions.`)]);
    expect(errorsOf((doc) => (control(doc).controller_states = {}))).toEqual(
      expect.arrayContaining([invalid(MC, `mixed_control needs controller_states: declare at least the initial one in ${MC}.controller_states.`)]),
    );
    expect(errorsOf((doc) => (control(doc).initial_state_ref = 'nobody'))).toEqual(
      expect.arrayContaining([invalid(MC, 'initial_state_ref "nobody" is not a controller state: name one of agent-control, operator-control.')]),
    );
  });

  it("holds states and transitions to the mixed_control's policy revision", () => {
    expect(errorsOf((doc) => (state(doc, 'agent-control').policy_revision = '2.0.0'))).toEqual([
      invalid(`${MC}.controller_states.agent-control`, `controller state "agent-control" is of policy revision "2.0.0", not the mixed_control's "1.0.0": set ${MC}.controller_states.agent-control.policy_revision to "1.0.0".`),
    ]);
    expect(errorsOf((doc) => (transition(doc, 'approve').policy_revision = '2.0.0'))).toEqual([
      invalid(`${MC}.transitions.approve`, `mixed-control transition "approve" is of policy revision "2.0.0", not the mixed_control's "1.0.0": set ${MC}.transitions.approve.policy_revision to "1.0.0".`),
    ]);
  });

  it('moves only between declared controller states, each transition at its own effective_order', () => {
    expect(errorsOf((doc) => (transition(doc, 'approve').to_state_ref = 'nobody'))).toEqual([
      invalid(`${MC}.transitions.approve`, `mixed-control transition "approve" names to_state_ref "nobody", which is not a controller state of ${MC}.controller_states: declare it or fix the name.`),
    ]);
    expect(errorsOf((doc) => (transition(doc, 'approve').effective_order = 1))).toEqual(
      expect.arrayContaining([invalid(`${MC}.transitions.approve`, 'mixed-control transitions "propose" and "approve" share effective_order 1: give each transition its own.')]),
    );
  });

  it('starts each transition, in effective_order, from a revision an earlier one established', () => {
    expect(
      errorsOf((doc) => {
        Object.assign(transition(doc, 'approve'), { expected_state_revision: 5, resulting_state_revision: 6 });
      }),
    ).toEqual(
      expect.arrayContaining([
        invalid(
          `${MC}.transitions.approve`,
          'mixed-control transition "approve" expects revision 5 of controller state "agent-control", which no earlier transition (in effective_order) establishes: correct expected_state_revision or from_state_ref.',
        ),
      ]),
    );
  });

  it('answers a proposal transition, at its resulting revision, after it', () => {
    expect(errorsOf((doc) => (transition(doc, 'approve').proposal_ref = 'approve'))).toEqual([
      invalid(`${MC}.transitions.approve`, 'mixed-control transition "approve" names proposal_ref "approve", which is not a proposal transition: name a transition of kind proposal.'),
    ]);
    expect(errorsOf((doc) => (transition(doc, 'approve').proposal_revision = 2))).toEqual([
      invalid(`${MC}.transitions.approve`, 'mixed-control transition "approve" answers revision 2 of proposal "propose", which results in revision 1: set proposal_revision to 1.'),
    ]);
    expect(
      errorsOf((doc) => {
        Object.assign(transition(doc, 'approve'), { effective_order: 1, expected_state_revision: 0, resulting_state_revision: 1 });
        transition(doc, 'propose').effective_order = 2;
      }),
    ).toEqual(
      expect.arrayContaining([
        invalid(`${MC}.transitions.approve`, 'mixed-control transition "approve" takes effect at order 1, not after its proposal "propose" (2): give it a later effective_order.'),
      ]),
    );
  });
});

describe('participant_inject_deliveries: their fields', () => {
  it('takes a mapping named by portable identifiers, not null', () => {
    expect(errorsOf((doc) => (specification(doc).participant_inject_deliveries.Brief = disclosure()))).toEqual([
      shape(`${DL}.Brief`, `the name "Brief" at ${DL}.Brief is not a portable identifier`),
    ]);
    expect(errorsOf((doc) => (specification(doc).participant_inject_deliveries = null))).toEqual([shape(DL, 'expected a mapping of participant inject deliveries')]);
  });

  it('refuses a blank ref or policy ref, and an empty occurrence ref or controller_ref, which may be blank', () => {
    expect(errorsOf((doc) => (delivery(doc, 'brief').participant_ref = ' '))).toEqual([shape(`${DL}.brief.participant_ref`, 'expected a non-blank string')]);
    expect(errorsOf((doc) => (delivery(doc, 'brief').delivery_policy.policy_ref = ' '))).toEqual([shape(`${DL}.brief.delivery_policy.policy_ref`, 'expected a non-blank string')]);
    expect(errorsOf((doc) => (delivery(doc, 'brief').occurrence.event_ref = ''))).toEqual([shape(`${DL}.brief.occurrence.event_ref`, 'expected a non-empty string')]);
    expect(errorsOf((doc) => (delivery(doc, 'direct').controller_ref = ''))).toEqual([shape(`${DL}.direct.controller_ref`, 'expected a non-empty string')]);
    expect(
      errorsOf((doc) => {
        delivery(doc, 'brief').occurrence.event_ref = ' ';
        delivery(doc, 'direct').controller_ref = ' ';
      }),
    ).toEqual([]);
  });

  it('takes only the listed kinds, order basis and failure disposition', () => {
    expect(errorsOf((doc) => (delivery(doc, 'brief').delivery_kind = 'external_direction'))).toEqual([shape(`${DL}.brief.delivery_kind`, 'expected one of disclosure, external-direction, intervention')]);
    expect(errorsOf((doc) => (delivery(doc, 'brief').order_basis = 'shared-time'))).toEqual([shape(`${DL}.brief.order_basis`)]);
    expect(errorsOf((doc) => (delivery(doc, 'brief').failure_disposition = 'retry'))).toEqual([shape(`${DL}.brief.failure_disposition`)]);
  });

  it('requires non-empty, distinct temporal constraint and evidence requirement refs', () => {
    expect(errorsOf((doc) => (delivery(doc, 'brief').temporal_constraint_refs = []))).toEqual([shape(`${DL}.brief.temporal_constraint_refs`, 'expected a non-empty list of distinct, non-blank refs')]);
    expect(errorsOf((doc) => (delivery(doc, 'brief').evidence_requirement_refs = ['a', 'a']))).toEqual([shape(`${DL}.brief.evidence_requirement_refs`)]);
  });

  it('takes control orders only as integers written as integers, and a control_transition_ref that is a portable identifier', () => {
    const at = `${DL}.direct.control_effective_order`;
    expect(errorsOfText(writtenAs((doc) => (delivery(doc, 'direct').control_effective_order = 7), '7', '7.0'))).toEqual([
      shape(at, `expected an integer at ${at}, got 7.0, which RAES reads as a float: write it as a whole number, without a fraction or exponent.`),
    ]);
    expect(errorsOf((doc) => (delivery(doc, 'direct').control_transition_ref = 'Approve'))).toEqual([shape(`${DL}.direct.control_transition_ref`, 'expected a portable identifier')]);
  });
});

describe('participant_inject_deliveries: the control agreement', () => {
  it('refuses control agreement fields on a disclosure, empty lists and null aside', () => {
    expect(
      errorsOf((doc) => {
        delivery(doc, 'brief').controller_ref = 'operator';
        delivery(doc, 'brief').control_evidence_refs = ['evidence.approval'];
      }),
    ).toEqual([invalid(`${DL}.brief`, 'inject delivery "brief" is a disclosure, which carries no control agreement: remove controller_ref, control_evidence_refs.')]);
    expect(errorsOf((doc) => Object.assign(delivery(doc, 'brief'), { control_evidence_refs: [], control_authority_scope_refs: [], controller_ref: null }))).toEqual([]);
  });

  it('requires the whole control agreement of an intervention or external direction', () => {
    expect(
      errorsOf((doc) => {
        delete delivery(doc, 'direct').controller_ref;
        delivery(doc, 'direct').control_evidence_refs = [];
      }),
    ).toEqual([invalid(`${DL}.direct`, 'inject delivery "direct" is an intervention, which needs a complete control agreement: set controller_ref, control_evidence_refs.')]);
    expect(errorsOf((doc) => (delivery(doc, 'direct').delivery_kind = 'external-direction'))).toEqual([]);
  });

  it('requires a control validity interval that holds the control effective order', () => {
    expect(errorsOf((doc) => (delivery(doc, 'direct').control_valid_from_order = 11))).toEqual([
      invalid(`${DL}.direct`, 'inject delivery "direct" has control valid until order 10, before control_valid_from_order 11: correct the interval.'),
    ]);
    expect(errorsOf((doc) => (delivery(doc, 'direct').control_effective_order = 11))).toEqual([
      invalid(`${DL}.direct`, 'inject delivery "direct" takes control effect at order 11, outside its validity 0 to 10: move control_effective_order into the interval or widen it.'),
    ]);
  });
});
