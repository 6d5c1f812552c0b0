import { Yaml, portalProbeWith, expectedDiagnostic, errorDiagnostics } from './scenario-fixtures';

/**
 * Content's service_materialization as RAES 3.3's Content model types and checks it (raes/content.py:
 * ServiceMaterialization, ServiceSearchIndexSchemaMaterialization, Content.validate_type_requirements).
 * Every refusal and acceptance below was checked against RAES's own models.
 */

const NAME = 'participant-observation';
const AT = `content.${NAME}`;
const SM = `${AT}.service_materialization`;
const content = (doc: Yaml): Yaml => doc.content[NAME];
/** A service-content materialization (its interface_profile left to RAES's default). */
const serviceContent = (more: Yaml = {}): Yaml => ({
  target_service_ref: 'nodes.customer-portal.services.http',
  readback_assertion_refs: ['assertions.readback'],
  evidence_requirement_refs: ['evidence.placed'],
  observation_boundary_refs: ['participant-view'],
  requirements: {},
  ...more,
});
const searchIndex = (more: Yaml = {}): Yaml => serviceContent({ interface_profile: 'service-search-index-schema', requirements: { field_semantics: { title: 'full-text' } }, ...more });
const errorsOf = (edit: (c: Yaml, doc: Yaml) => void) =>
  errorDiagnostics(portalProbeWith((doc) => edit(content(doc), doc)));
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', address === '' ? SM : `${SM}.${address}`, message);

describe('a service-content materialization', () => {
  it('takes the default profile, or it written out, and null for absent', () => {
    expect(errorsOf((c) => (c.service_materialization = serviceContent()))).toEqual([]);
    expect(
      errorsOf(
        (c) =>
          (c.service_materialization = serviceContent({
            interface_profile: 'service-content',
            profile_version: '1',
            shared_service_relationship_ref: '',
            ordering_content_refs: ['content.task-brief'],
            requirements: { operation: 'ensure-owned-items', conflict_policy: 'reject-unowned-collision', readback: 'canonical-content-digest' },
          })),
      ),
    ).toEqual([]);
    expect(errorsOf((c) => (c.service_materialization = null))).toEqual([]);
    expect(errorsOf((c) => (c.service_materialization = serviceContent({ target_service_ref: ' ' })))).toEqual([]);
  });

  it('refuses another profile, version or requirement, and keys it does not have', () => {
    expect(errorsOf((c) => (c.service_materialization = serviceContent({ interface_profile: 'other' })))).toEqual([
      shape('interface_profile', `expected one of service-content, service-search-index-schema at ${SM}.interface_profile, got "other".`),
    ]);
    for (const version of ['2', 1]) expect(errorsOf((c) => (c.service_materialization = serviceContent({ profile_version: version })))).toEqual([shape('profile_version', 'expected "1"')]);
    expect(errorsOf((c) => (c.service_materialization = serviceContent({ requirements: { operation: 'x' } })))).toEqual([shape('requirements.operation', 'expected "ensure-owned-items"')]);
    expect(errorsOf((c) => (c.service_materialization = serviceContent({ x: 1 })))).toEqual([
      { code: 'scenario.key-unknown', address: `${SM}.x`, message: expect.stringContaining('unknown key "x"') },
    ]);
    expect(errorsOf((c) => (c.service_materialization = []))).toEqual([shape('', `expected a mapping (ServiceMaterialization) at ${SM}, got [].`)]);
  });

  it('requires its refs: a target service, and non-empty, distinct, non-blank readback, evidence and boundary refs', () => {
    expect(errorsOf((c) => (c.service_materialization = serviceContent({ target_service_ref: '' })))).toEqual([shape('target_service_ref', 'expected a non-empty string')]);
    expect(errorsOf((c) => (c.service_materialization = serviceContent({ readback_assertion_refs: [] })))).toEqual([
      shape('readback_assertion_refs', 'expected a non-empty list of distinct, non-blank refs'),
    ]);
    expect(errorsOf((c) => (c.service_materialization = serviceContent({ ordering_content_refs: [' '] })))).toEqual([shape('ordering_content_refs', 'expected a list of distinct, non-blank refs')]);
    expect(errorsOf((c) => (c.service_materialization = serviceContent({ ordering_content_refs: ['a', 'a'] })))).toEqual([shape('ordering_content_refs')]);
    expect(errorsOf((c) => (c.service_materialization = serviceContent({ shared_service_relationship_ref: null })))).toEqual([shape('shared_service_relationship_ref', 'expected a string')]);
    const { requirements: _, ...withoutRequirements } = serviceContent();
    expect(errorsOf((c) => (c.service_materialization = withoutRequirements))).toEqual([shape('requirements', 'missing required field')]);
  });

  it('still needs a source or items of dataset content', () => {
    expect(
      errorsOf((c) => {
        c.service_materialization = serviceContent();
        delete c.items;
      }),
    ).toEqual([
      {
        code: 'scenario.content-incomplete',
        address: AT,
        message: `dataset content "${NAME}" has neither a source nor items: set ${AT}.source or list at least one entry in ${AT}.items.`,
      },
    ]);
    expect(
      errorsOf((c) => {
        c.service_materialization = null;
        delete c.items;
      }),
    ).toEqual([expect.objectContaining({ code: 'scenario.content-incomplete', address: AT })]);
  });
});

describe('a search-index schema materialization', () => {
  it('is dataset content without a source or items', () => {
    expect(
      errorsOf((c) => {
        c.service_materialization = searchIndex();
        delete c.items;
      }),
    ).toEqual([]);
    expect(errorsOf((c) => (c.service_materialization = searchIndex()))).toEqual([
      {
        code: 'scenario.content-incomplete',
        address: SM,
        message: `content "${NAME}" materializes a search-index schema, which carries no source or items: remove ${AT}.items.`,
      },
    ]);
    expect(errorsOf((c, doc) => (doc.content['task-brief'].service_materialization = searchIndex()))).toEqual([
      {
        code: 'scenario.content-incomplete',
        address: 'content.task-brief.service_materialization',
        message: 'content "task-brief" materializes a search-index schema, which only dataset content does: make it a dataset, or use interface_profile service-content.',
      },
    ]);
  });

  it('requires field semantics, named by portable identifiers, from its list', () => {
    const edit = (requirements: Yaml) => (c: Yaml) => {
      c.service_materialization = searchIndex({ requirements });
      delete c.items;
    };
    expect(errorsOf(edit({}))).toEqual([shape('requirements.field_semantics', 'missing required field')]);
    expect(errorsOf(edit({ field_semantics: {} }))).toEqual([shape('requirements.field_semantics', 'expected a mapping of at least one field semantic')]);
    expect(errorsOf(edit({ field_semantics: { title: 'fulltext' } }))).toEqual([shape('requirements.field_semantics.title', 'expected one of exact-token, full-text, integer, temporal, boolean')]);
    expect(errorsOf(edit({ field_semantics: { Title: 'full-text' } }))).toEqual([shape('requirements.field_semantics.Title', 'is not a portable identifier')]);
    expect(errorsOf(edit({ field_semantics: { title: 'full-text' }, operation: 'ensure-owned-items' }))).toEqual([shape('requirements.operation', 'expected "ensure-search-index-field-schema"')]);
  });
});
