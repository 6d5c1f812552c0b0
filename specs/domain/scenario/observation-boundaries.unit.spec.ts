import { loadScenario } from '../../../domain/scenario';
import { Yaml, portalProbeWith } from './scenario-fixtures';

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
const shape = (address: string, message: string | RegExp = /./) => ({
  code: 'scenario.shape-invalid',
  address: `${AT}.${address}`,
  message: typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message),
});
const invalid = (address: string, message: string | RegExp) => ({
  code: 'scenario.observation-boundary-invalid',
  address: address === '' ? AT : `${AT}.${address}`,
  message: typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message),
});

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
