import { loadScenario } from '../../../domain/scenario';
import { Yaml, portalProbeWith, expectedDiagnostic } from './scenario-fixtures';

/**
 * An observation boundary and its view rules as RAES 3.3 types and checks them (ParticipantObservationBoundary,
 * ParticipantViewRule). Every refusal and acceptance below was checked against RAES's own models.
 */

const NAME = 'participant-view';
const AT = `observation_boundaries.${NAME}`;
const boundary = (doc: Yaml): Yaml => doc.observation_boundaries[NAME];
/** The example's view rules: 0 task brief (observable), 2 portal (hidden), 3 operator notes (adjudication_material, hidden), 4 evidence (evidence_only). */
const rule = (doc: Yaml, i: number): Yaml => boundary(doc).view_rules[i];
const errorsOfText = (text: string, codes?: ReadonlyArray<string>) =>
  loadScenario(text)
    .diagnostics.filter((d) => d.severity === 'error' && (codes === undefined || codes.includes(d.code)))
    .map((d) => ({ code: d.code, address: d.address, message: d.message }));
const errorsOf = (edit: (b: Yaml, doc: Yaml) => void, codes?: ReadonlyArray<string>) => errorsOfText(portalProbeWith((doc) => edit(boundary(doc), doc)), codes);
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', `${AT}.${address}`, message);
const invalid = (address: string, message: string | RegExp) => expectedDiagnostic('scenario.observation-boundary-invalid', address === '' ? AT : `${AT}.${address}`, message);

describe("an observation boundary's own texts", () => {
  it.each(['projection_basis', 'redaction_policy', 'latency_profile'])('refuses a blank %s, as RAES strips it', (field) => {
    expect(errorsOf((b) => (b[field] = ' \t'))).toEqual([shape(field, `expected a non-blank string at ${AT}.${field}, got " \\t".`)]);
    expect(errorsOf((b) => (b[field] = '\u001c'))).toEqual([shape(field)]);
    // U+FEFF is not white space to Python: RAES keeps such a text.
    expect(errorsOf((b) => (b[field] = '\ufeff'))).toEqual([]);
  });

  it('refuses a blank realized_view_disclosure, and takes null for absent', () => {
    expect(errorsOf((b) => (b.realized_view_disclosure = ' '))).toEqual([shape('realized_view_disclosure', 'expected a non-blank string')]);
    expect(errorsOf((b) => (b.realized_view_disclosure = null))).toEqual([]);
    expect(errorsOf((b) => (b.realized_view_disclosure = 'Views are projected by the runtime.'))).toEqual([]);
  });

  it('lets the ref lists and observer_effects hold blank or repeated entries, as RAES does', () => {
    expect(
      errorsOf((b) => {
        b.observer_effects = [' ', ' '];
        b.hidden_refs.push('content.operator-notes');
      }),
    ).toEqual([]);
  });
});

describe("a view rule's texts", () => {
  it.each(['information_ref', 'visibility_basis'])('refuses a blank %s (U+0085 is white space)', (field) => {
    expect(errorsOf((b, doc) => (rule(doc, 0)[field] = '\u0085'))).toEqual([shape(`view_rules.0.${field}`, `expected a non-blank string at ${AT}.view_rules.0.${field}`)]);
  });

  it.each(['disclosure_rule', 'effective_from', 'realized_backend_disclosure', 'certainty', 'latency_profile'])(
    'refuses a blank %s but takes null or a text of U+FEFF',
    (field) => {
      expect(errorsOf((b, doc) => (rule(doc, 0)[field] = '\u0085'))).toEqual([shape(`view_rules.0.${field}`, 'expected a non-blank string')]);
      expect(errorsOf((b, doc) => (rule(doc, 0)[field] = null))).toEqual([]);
      expect(errorsOf((b, doc) => (rule(doc, 0)[field] = '\ufeff'))).toEqual([]);
    },
  );

  it('refuses a blank evidence ref, not a repeated one', () => {
    expect(errorsOf((b, doc) => (rule(doc, 4).evidence_refs = ['content.participant-observation', ' ']))).toEqual([
      shape('view_rules.4.evidence_refs', 'expected a list of non-blank refs'),
    ]);
    expect(errorsOf((b, doc) => (rule(doc, 4).evidence_refs = ['content.participant-observation', 'content.participant-observation']))).toEqual([]);
  });
});

describe('what a view rule needs by its disposition and class', () => {
  it('requires a disclosure_rule of a disclosed view rule', () => {
    expect(errorsOf((b, doc) => (rule(doc, 0).disposition = 'disclosed'))).toEqual([
      invalid(
        'view_rules.0',
        `view rule for "content.task-brief": a disclosed view rule needs a disclosure_rule: say in ${AT}.view_rules.0.disclosure_rule how the information is disclosed.`,
      ),
    ]);
    expect(
      errorsOf((b, doc) => {
        rule(doc, 0).disposition = 'disclosed';
        rule(doc, 0).disclosure_rule = 'The brief is handed over at the start.';
      }),
    ).toEqual([]);
  });

  it('never lets sensitive information be observable, even with a disclosure rule', () => {
    for (const disclosure of [undefined, 'shown after the run']) {
      expect(
        errorsOf((b, doc) => {
          rule(doc, 3).disposition = 'observable';
          if (disclosure !== undefined) rule(doc, 3).disclosure_rule = disclosure;
        }),
      ).toEqual([
        invalid(
          'view_rules.3',
          'view rule for "content.operator-notes": adjudication_material information is never plainly observable: use disposition disclosed, with a disclosure_rule.',
        ),
      ]);
    }
  });

  it.each(['discovered', 'inferred', 'deceptive'])('requires a disclosure_rule to expose sensitive information as %s', (disposition) => {
    expect(errorsOf((b, doc) => (rule(doc, 3).disposition = disposition))).toEqual([
      invalid(
        'view_rules.3',
        `view rule for "content.operator-notes": exposing adjudication_material information (disposition ${disposition}) needs a disclosure_rule: set ${AT}.view_rules.3.disclosure_rule.`,
      ),
    ]);
    expect(
      errorsOf((b, doc) => {
        rule(doc, 3).disposition = disposition;
        rule(doc, 3).disclosure_rule = 'Released to the participant after adjudication.';
      }),
    ).toEqual([]);
    // Other classes may be discovered, inferred or deceptive without one; sensitive ones concealed.
    expect(errorsOf((b, doc) => (rule(doc, 2).disposition = disposition))).toEqual([]);
    expect(errorsOf((b, doc) => (rule(doc, 3).disposition = 'concealed'))).toEqual([]);
  });

  it('requires evidence_refs of an evidence_only view rule', () => {
    const message = `view rule for "content.participant-observation": an evidence_only view rule needs evidence_refs: list the evidence that carries it in ${AT}.view_rules.4.evidence_refs.`;
    expect(errorsOf((b, doc) => (rule(doc, 4).evidence_refs = []))).toEqual([invalid('view_rules.4', message)]);
    expect(errorsOf((b, doc) => delete rule(doc, 4).evidence_refs)).toEqual([invalid('view_rules.4', message)]);
    // Other dispositions need none.
    expect(errorsOf((b, doc) => (rule(doc, 2).evidence_refs = []))).toEqual([]);
  });
});

describe("how a boundary's refs divide its information", () => {
  it('requires observable_refs or evidence_refs', () => {
    expect(
      errorsOf(
        (b) => {
          b.observable_refs = [];
          b.evidence_refs = [];
          b.view_rules = [];
        },
        ['scenario.observation-boundary-invalid'],
      ),
    ).toEqual([
      invalid('', `observation boundary "${NAME}" shows nothing: list what the participant observes in ${AT}.observable_refs or the evidence it keeps in ${AT}.evidence_refs.`),
    ]);
    for (const emptied of ['observable_refs', 'evidence_refs']) {
      expect(
        errorsOf(
          (b) => {
            b[emptied] = [];
            b.view_rules = [];
          },
          ['scenario.observation-boundary-invalid'],
        ),
      ).toEqual([]);
    }
  });

  it('refuses a ref both hidden and observable', () => {
    expect(errorsOf((b) => b.observable_refs.push('nodes.customer-portal.services.http', 'content.operator-notes'))).toEqual([
      invalid(
        'hidden_refs',
        `observation boundary "${NAME}" both hides and shows content.operator-notes, nodes.customer-portal.services.http: remove them from observable_refs, and disclose through a view rule with disposition disclosed if the participant may see them.`,
      ),
    ]);
  });

  it('refuses an evidence_only ref among the observable ones', () => {
    expect(errorsOf((b) => b.observable_refs.push('content.participant-observation'))).toEqual([
      invalid(
        'observable_refs',
        `observation boundary "${NAME}" shows content.participant-observation, which its view rules make evidence_only: move it from observable_refs to evidence_refs.`,
      ),
    ]);
  });

  it('keeps a hidden ref as evidence only through an evidence_only view rule', () => {
    expect(errorsOf((b) => b.evidence_refs.push('content.operator-notes'))).toEqual([
      invalid(
        'evidence_refs',
        `observation boundary "${NAME}" keeps hidden content.operator-notes as evidence without an evidence_only view rule: classify it with disposition evidence_only, or remove it from evidence_refs.`,
      ),
    ]);
    expect(
      errorsOf((b, doc) => {
        b.evidence_refs.push('content.operator-notes');
        Object.assign(rule(doc, 3), { disposition: 'evidence_only', evidence_refs: ['content.participant-observation'] });
      }),
    ).toEqual([]);
  });

  it('refuses two view rules for one information_ref', () => {
    expect(
      errorsOf((b) => {
        b.view_rules.push({ ...b.view_rules[2] }, { ...b.view_rules[0] });
      }),
    ).toEqual([
      invalid(
        'view_rules',
        `observation boundary "${NAME}" classifies content.task-brief, nodes.customer-portal.services.http in more than one view rule: keep one view rule per information_ref.`,
      ),
    ]);
  });
});

/** A view transition RAES 3.3 accepts on the example's boundary: the participant discovers the portal. */
const transition = (fields: Yaml = {}): Yaml => ({
  transition_id: 'discover-portal',
  transition_kind: 'discovery',
  information_ref: 'nodes.customer-portal.services.http',
  trigger: 'probe terminal observation',
  effective_from: 'episode-step:probe-0001:terminal',
  effective_order: 10,
  history_event_type: 'observation_emitted',
  action_instance_id: 'probe-0001',
  from_disposition: 'hidden',
  to_disposition: 'discovered',
  evidence_refs: ['content.participant-observation'],
  certainty: 'high',
  latency_profile: 'terminal observation latency',
  ...fields,
});
/** The portal, discovered, is concealed again. */
const concealment = (fields: Yaml = {}): Yaml =>
  transition({ transition_id: 'conceal-portal', transition_kind: 'concealment', effective_order: 11, from_disposition: 'discovered', to_disposition: 'concealed', ...fields });
const withTransitions = (...transitions: Yaml[]) => errorsOf((b) => (b.view_transitions = transitions));

describe("a view transition's fields", () => {
  it('accepts a transition as RAES types it', () => {
    expect(withTransitions(transition())).toEqual([]);
  });

  it.each(['transition_id', 'information_ref', 'trigger', 'effective_from', 'certainty', 'latency_profile'])('requires a non-blank %s', (field) => {
    expect(withTransitions(transition({ [field]: '\u0085' }))).toEqual([shape(`view_transitions.0.${field}`, `expected a non-blank string at ${AT}.view_transitions.0.${field}`)]);
    const { [field]: _omitted, ...without } = transition();
    expect(withTransitions(without)).toEqual([shape(`view_transitions.0.${field}`, `missing required field ${AT}.view_transitions.0.${field}`)]);
  });

  it.each(['action_instance_id', 'disclosure_rule', 'realized_backend_disclosure'])('refuses a blank %s, and takes U+FEFF as text', (field) => {
    expect(withTransitions(transition({ [field]: ' ' }))).toEqual([shape(`view_transitions.0.${field}`, 'expected a non-blank string')]);
    expect(withTransitions(transition({ [field]: '\ufeff' }))).toEqual([]);
  });

  it('types kinds, history event types and dispositions as closed lists, and refuses unknown keys', () => {
    expect(withTransitions(transition({ transition_kind: 'Discovery', history_event_type: 'observed', from_disposition: 'gone', note: 'x' }))).toEqual([
      { code: 'scenario.key-unknown', address: `${AT}.view_transitions.0.note`, message: expect.stringContaining('unknown key "note"') },
      shape('view_transitions.0.transition_kind', 'expected one of discovery, inference, concealment, disclosure, revocation, deception'),
      shape('view_transitions.0.history_event_type', 'expected one of action_attempted, state_transition_recorded, observation_emitted, episode_close'),
      shape('view_transitions.0.from_disposition', 'expected one of observable, hidden, evidence_only,'),
    ]);
    expect(errorsOf((b) => (b.view_transitions = null))).toEqual([shape('view_transitions', 'expected a list')]);
  });

  it('refuses a blank evidence ref, not a repeated one', () => {
    expect(withTransitions(transition({ evidence_refs: ['content.participant-observation', ''] }))).toEqual([shape('view_transitions.0.evidence_refs', 'expected a list of non-blank refs')]);
    expect(withTransitions(transition({ evidence_refs: ['content.participant-observation', 'content.participant-observation'] }))).toEqual([]);
  });

  it('reads effective_order as pydantic reads an int from 0 up, of any size', () => {
    for (const order of [-1, 1.5, 'x', null]) {
      expect(withTransitions(transition({ effective_order: order }))).toEqual([shape('view_transitions.0.effective_order', 'expected an integer >= 0')]);
    }
    for (const order of [0, '3', ' 3 ', true, 3.0, '1000000000000000000000000000000']) {
      expect(withTransitions(transition({ effective_order: order }))).toEqual([]);
    }
  });
});

describe('what a view transition needs by its kind and history event', () => {
  const problem = (message: string) => [invalid('view_transitions.0', `view transition "discover-portal": ${message}`)];

  it('leads each kind only to its dispositions', () => {
    expect(withTransitions(transition({ to_disposition: 'inferred' }))).toEqual(
      problem('a discovery transition leads to discovered, not inferred: change to_disposition or transition_kind.'),
    );
    expect(withTransitions(transition({ transition_kind: 'revocation', from_disposition: 'hidden', to_disposition: 'observable' }))).toEqual(
      problem('a revocation transition leads to one of concealed, hidden, not observable: change to_disposition or transition_kind.'),
    );
    expect(withTransitions(transition({ transition_kind: 'revocation', to_disposition: 'concealed' }))).toEqual([]);
  });

  it('requires a change of disposition', () => {
    expect(withTransitions(transition({ transition_kind: 'revocation', from_disposition: 'hidden', to_disposition: 'hidden' }))).toEqual(
      problem('the transition does not change the disposition (hidden to hidden): correct from_disposition, or remove the transition.'),
    );
  });

  it('requires a disclosure_rule of a disclosure', () => {
    expect(withTransitions(transition({ transition_kind: 'disclosure', to_disposition: 'disclosed' }))).toEqual(
      problem(`a disclosure transition needs a disclosure_rule: set ${AT}.view_transitions.0.disclosure_rule.`),
    );
    expect(withTransitions(transition({ transition_kind: 'disclosure', to_disposition: 'disclosed', disclosure_rule: 'after the probe' }))).toEqual([]);
  });

  it('requires evidence_refs', () => {
    expect(withTransitions(transition({ evidence_refs: [] }))).toEqual(
      problem(`a view transition needs evidence_refs: list the evidence of the change in ${AT}.view_transitions.0.evidence_refs.`),
    );
  });

  it('names an action instance exactly when its history event is not episode_close', () => {
    expect(withTransitions(transition({ action_instance_id: null }))).toEqual(
      problem(`a transition realized by history event observation_emitted needs the action_instance_id that caused it: set ${AT}.view_transitions.0.action_instance_id.`),
    );
    expect(withTransitions(transition({ history_event_type: 'episode_close' }))).toEqual(
      problem('an episode_close transition is not caused by an action instance: remove action_instance_id.'),
    );
    expect(withTransitions(transition({ history_event_type: 'episode_close', action_instance_id: null }))).toEqual([]);
  });
});

describe("how a boundary's view transitions fit its view rules", () => {
  it('refuses a repeated transition_id or effective_order', () => {
    expect(withTransitions(transition(), concealment({ transition_id: 'discover-portal' }))).toEqual([
      invalid('view_transitions', `observation boundary "${NAME}" has transition ids discover-portal more than once: give each view transition its own transition_id.`),
    ]);
    expect(withTransitions(transition(), concealment({ effective_order: 10 }))).toEqual([
      invalid('view_transitions', `observation boundary "${NAME}" has effective_order 10 on more than one view transition: give each transition its own place in the order.`),
    ]);
    expect(withTransitions(transition(), concealment())).toEqual([]);
  });

  it('compares orders beyond 2^53 exactly, as Python integers', () => {
    const written = (first: string, second: string): string => {
      const text = portalProbeWith((doc) => (boundary(doc).view_transitions = [transition({ effective_order: 1 }), concealment({ effective_order: 2 })]))
        .replace('effective_order: 1\n', `effective_order: ${first}\n`)
        .replace('effective_order: 2\n', `effective_order: ${second}\n`);
      expect(text).toContain(`effective_order: ${second}\n`);
      return text;
    };
    expect(errorsOfText(written('9007199254740993', '9007199254740993'))).toEqual([
      invalid('view_transitions', `observation boundary "${NAME}" has effective_order 9007199254740993 on more than one view transition: give each transition its own place in the order.`),
    ]);
    // Both read 9007199254740992 as JavaScript numbers; RAES tells them apart.
    expect(errorsOfText(written('9007199254740992', '9007199254740993'))).toEqual([]);
  });

  it('requires a view rule for the information a transition changes', () => {
    expect(
      errorsOf((b) => {
        b.hidden_refs.push('content.unruled');
        b.view_transitions = [transition({ information_ref: 'content.unruled' })];
      }),
    ).toEqual([
      invalid('view_transitions', `observation boundary "${NAME}" has view transitions discover-portal for information no view rule classifies: add a view rule for each transition's information_ref.`),
    ]);
  });

  it('requires a disclosure_rule of a transition exposing sensitive information', () => {
    expect(withTransitions(transition({ information_ref: 'content.operator-notes' }))).toEqual([
      invalid(
        'view_transitions.0',
        `view transition "discover-portal" exposes adjudication_material information (discovered) without a disclosure_rule: set ${AT}.view_transitions.0.disclosure_rule.`,
      ),
    ]);
    expect(withTransitions(transition({ information_ref: 'content.operator-notes', disclosure_rule: 'released after adjudication' }))).toEqual([]);
    expect(withTransitions(transition({ information_ref: 'content.operator-notes', transition_kind: 'concealment', to_disposition: 'concealed' }))).toEqual([]);
  });

  it('starts each transition, in effective_order, from the disposition the view rule and the transitions before it leave', () => {
    expect(withTransitions(transition({ from_disposition: 'concealed' }))).toEqual([
      invalid(
        'view_transitions.0.from_disposition',
        'view transition "discover-portal" starts from concealed, but nodes.customer-portal.services.http is hidden at that point (its view rule, then the transitions before it in effective_order): start from hidden, or reorder the transitions.',
      ),
    ]);
    expect(withTransitions(transition({ effective_order: 12 }), concealment())).toEqual([
      invalid(
        'view_transitions.1.from_disposition',
        'view transition "conceal-portal" starts from discovered, but nodes.customer-portal.services.http is hidden at that point (its view rule, then the transitions before it in effective_order): start from hidden, or reorder the transitions.',
      ),
    ]);
    // The list's order does not matter, effective_order does.
    expect(withTransitions(concealment(), transition())).toEqual([]);
  });

  it('binds what a transition changes and cites to what the boundary lists (RAES: participant.view-transition-*-unbound)', () => {
    expect(
      errorsOf((b) => {
        b.view_rules.push({ information_ref: 'content.unlisted', boundary_class: 'observable_resource', disposition: 'hidden', visibility_basis: 'authored' });
        b.view_transitions = [transition({ information_ref: 'content.unlisted', evidence_refs: ['content.task-brief'] })];
      }),
    ).toEqual([
      expect.objectContaining({ code: 'scenario.view-rule-unclassified', address: `${AT}.view_rules.5.information_ref` }),
      {
        code: 'scenario.view-rule-unclassified',
        address: `${AT}.view_transitions.0.information_ref`,
        message: `view transition "discover-portal" of boundary "${NAME}" changes the view of "content.unlisted", which the boundary does not list: add it to its observable_refs, hidden_refs or evidence_refs.`,
      },
      {
        code: 'scenario.view-rule-unclassified',
        address: `${AT}.view_transitions.0.evidence_refs`,
        message: `view transition "discover-portal" of boundary "${NAME}" cites evidence "content.task-brief", which is not in the boundary's evidence_refs: add it there.`,
      },
    ]);
  });
});
