import { Yaml, portalProbeWith, errorDiagnostics, expectedDiagnostic } from './scenario-fixtures';

/**
 * The fields of a behavior specification the engine does not use, typed and checked as RAES 3.3's
 * models type and check them (raes/participant_behavior_specification.py). Every refusal and
 * acceptance below was checked against RAES's own models.
 */

const NAME = 'participant-behavior';
const AT = `behavior_specifications.${NAME}`;
const specification = (doc: Yaml): Yaml => doc.behavior_specifications[NAME];
const errorsOfText = (text: string) =>
  errorDiagnostics(text);
const errorsOf = (edit: (s: Yaml, doc: Yaml) => void) => errorsOfText(portalProbeWith((doc) => edit(specification(doc), doc)));
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', `${AT}.${address}`, message);
const invalid = (address: string, message: string | RegExp) => expectedDiagnostic('scenario.behavior-specification-invalid', address === '' ? AT : `${AT}.${address}`, message);

describe("a behavior specification's extensions", () => {
  it('takes any value under a governed extension key, nested or null', () => {
    expect(
      errorsOf((s) => {
        s.extensions = { 'x-acme:probe-depth': 2, 'x-acme-labs:notes': { tags: ['a', 1, 2.5, true, null], more: { deep: 'yes' } }, 'x-a:b': null };
      }),
    ).toEqual([]);
    expect(errorsOf((s) => (s.extensions = {}))).toEqual([]);
  });

  it.each(['probe-depth', 'X-acme:depth', 'x-acme:probe_depth', 'x-acme:', 'x--acme:depth', 'x-acme:depth-', 'x-acme:depth:more', 'x-acme:depth\n'])(
    'refuses the key %j, which is not x-<owner>:<term>',
    (key) => {
      expect(errorsOf((s) => (s.extensions = { 'x-acme:fine': 1, [key]: 1 }))).toEqual([
        shape(`extensions.${key}`, `the name "${key}" at ${AT}.extensions.${key} is not a governed extension key x-<owner>:<term>`),
      ]);
    },
  );

  it('holds the field keys inside an extension to the spelling RAES gives fields, except keys of fields that hold names', () => {
    const key = (path: string, written: string, canonical: string) =>
      shape(`extensions.x-acme:probe.${path}`, `the key "${written}" is not spelled as RAES spells a field: write "${canonical}" (lowercase, "_" for "-").`);
    expect(errorsOf((s) => (s.extensions = { 'x-acme:probe': { Tags: 1, nested: [{ 'max-depth': 2 }] } }))).toEqual([
      key('Tags', 'Tags', 'tags'),
      key('nested.0.max-depth', 'max-depth', 'max_depth'),
    ]);
    expect(errorsOf((s) => (s.extensions = { 'x-acme:probe': { labels: { 'My-Label': { Bad: 1 } }, properties: { Foo: 1 } } }))).toEqual([
      key('labels.My-Label.Bad', 'Bad', 'bad'),
      key('properties.Foo', 'Foo', 'foo'),
    ]);
    expect(
      errorsOf(
        (s) =>
          (s.extensions = {
            'x-acme:probe': { labels: { 'My-Label': { ok: 1 } }, properties: [{ 'Foo-Bar': 1 }], nodes: { Web: 1 }, steps: [{ Any: 1 }], max_depth: 'Free-Text' },
          }),
      ),
    ).toEqual([]);
  });

  it('refuses extensions that are not a mapping, or null', () => {
    expect(errorsOf((s) => (s.extensions = ['x-acme:depth']))).toEqual([shape('extensions', 'expected a mapping of extensions by key')]);
    expect(errorsOf((s) => (s.extensions = null))).toEqual([shape('extensions', 'expected a mapping of extensions by key')]);
  });

  it('refuses any extension under extension_policy closed, and takes them under governed-extension or by default', () => {
    expect(
      errorsOf((s) => {
        s.extension_policy = 'closed';
        s.extensions = { 'x-acme:probe-depth': 2, 'x-acme:mode': 'fast' };
      }),
    ).toEqual([
      invalid(
        'extensions',
        `${AT} declares extension_policy closed, which allows no extensions, yet lists x-acme:probe-depth, x-acme:mode: remove ${AT}.extensions, or set extension_policy to governed-extension.`,
      ),
    ]);
    expect(
      errorsOf((s) => {
        s.extension_policy = 'closed';
        s.extensions = {};
      }),
    ).toEqual([]);
    expect(
      errorsOf((s) => {
        s.extension_policy = 'governed-extension';
        s.extensions = { 'x-acme:probe-depth': 2 };
      }),
    ).toEqual([]);
    expect(errorsOf((s) => (s.extensions = { 'x-acme:probe-depth': 2 }))).toEqual([]);
  });
});

describe("a behavior specification's own texts and what it aggregates", () => {
  it('refuses a blank semantic_version, behavior_mode or realization_profile_ref (U+FEFF is not blank)', () => {
    expect(errorsOf((s) => (s.semantic_version = ' '))).toEqual([shape('semantic_version', 'expected a non-blank string')]);
    expect(errorsOf((s) => (s.behavior_mode = '\u0085'))).toEqual([shape('behavior_mode', 'expected a non-blank string')]);
    expect(errorsOf((s) => (s.realization_profile_ref = ' '))).toEqual([shape('realization_profile_ref', 'expected a non-blank string')]);
    expect(errorsOf((s) => (s.realization_profile_ref = '\ufeff'))).toEqual([]);
    expect(errorsOf((s) => (s.realization_profile_ref = null))).toEqual([]);
  });

  it('names participants, by name or by role', () => {
    const extra = (more: Yaml) => errorsOf((s, doc) => (doc.behavior_specifications.extra = { semantic_version: '1', action_contract_refs: ['probe-customer-portal-login'], ...more }));
    expect(extra({})).toEqual([
      {
        code: 'scenario.behavior-specification-invalid',
        address: 'behavior_specifications.extra',
        message: 'behavior specification "extra" names no participants: list agents in behavior_specifications.extra.participant_refs or roles in behavior_specifications.extra.participant_role_refs.',
      },
    ]);
    expect(extra({ participant_role_refs: ['green'] })).toEqual([]);
  });

  it('aggregates at least one behavior surface', () => {
    const message =
      'behavior specification "extra" declares no behavior surface: give it action contracts, boundaries, a behavior_mode, a policy, tool affordances or another surface it aggregates.';
    const extra = (more: Yaml) => errorsOf((s, doc) => (doc.behavior_specifications.extra = { semantic_version: '1', participant_refs: ['participant-agent'], ...more }));
    for (const more of [{}, { tool_affordances: {} }, { mixed_control: null }, { participant_inject_deliveries: {} }, { action_contract_refs: [] }]) {
      expect(extra(more)).toEqual([{ code: 'scenario.behavior-specification-invalid', address: 'behavior_specifications.extra', message }]);
    }
    expect(extra({ realization_profile_ref: 'x' })).toEqual([]);
    expect(extra({ behavior_mode: 'autonomous' })).toEqual([]);
  });
});
