import { Yaml, portalProbeWith, expectedDiagnostic, errorDiagnostics } from './scenario-fixtures';

/**
 * A source's artifact requirement as RAES 3.3's models type and check it (raes/_source.py:
 * ArtifactRequirement and its parts, Source.validate_exact_requirement_selector), on a node's source.
 * Every refusal and acceptance below was checked against RAES's own models.
 */

const AT = 'nodes.red-workbench.source';
const REQ = `${AT}.artifact_requirement`;
const DIGEST = `sha256:${'a'.repeat(64)}`;
const identity = (more: Yaml = {}): Yaml => ({ artifact_id: 'ubuntu', version: '22.04', digest: DIGEST, media_type: 'application/x-qemu-disk', ...more });
const mechanism = (name = 'exact-artifact'): Yaml => ({ mechanism: name, profile: 'raes/exact', version: '1', digest: DIGEST });
const route = (name = 'exact-artifact', more: Yaml = {}): Yaml => ({ mechanism: mechanism(name), acquisition: 'pull', timing: 'realization', ...more });
const exact = (more: Yaml = {}): Yaml => ({ requirement_id: 'base-image', explicitness: 'exact', exact_artifact: identity(), permitted_routes: [route()], ...more });
const constraint = (values: string[] = ['ubuntu']): Yaml => ({ constraint_id: 'os', kind: 'os-family', allowed_values: values });
const constrained = (more: Yaml = {}): Yaml => ({ requirement_id: 'base-image', explicitness: 'constrained', constraints: [constraint()], permitted_routes: [route('published-candidate')], ...more });
const open = (more: Yaml = {}): Yaml => ({ requirement_id: 'base-image', explicitness: 'open', permitted_routes: [route('backend-owned-artifact')], ...more });
const lockedInput = (): Yaml => ({ input_id: 'base', artifact: identity(), associated_artifact_manifest_ref: 'manifests.base', trust_policy_ref: 'trust.default' });
const specification = (more: Yaml = {}): Yaml => ({ specification_id: 'build', profile: mechanism('materialization-specification'), digest: DIGEST, locked_input_ids: ['base'], ...more });

const errorsOfSource = (source: Yaml) =>
  errorDiagnostics(portalProbeWith((doc) => (doc.nodes['red-workbench'].source = source)));
const errorsOf = (requirement: Yaml, more: Yaml = {}) => errorsOfSource({ name: 'ubuntu', version: '22.04', artifact_requirement: requirement, ...more });
const shape = (address: string, message: string | RegExp = /./) => expectedDiagnostic('scenario.shape-invalid', `${REQ}.${address}`, message);
const invalid = (message: string) => ({ code: 'scenario.source-invalid', address: REQ, message });

describe("an artifact requirement's fields", () => {
  it('accepts an exact, a constrained and an open requirement, and null for none', () => {
    for (const requirement of [
      exact(),
      constrained(),
      open(),
      open({ locked_inputs: [lockedInput()], permitted_routes: [route('x-acme:fetch')] }),
      constrained({ constraints: [], locked_inputs: [lockedInput()], materialization_specifications: [specification()] }),
      exact({ trust_policy_refs: ['\u{1F600}'.repeat(1024)] }),
      null,
    ]) {
      expect(errorsOf(requirement)).toEqual([]);
    }
  });

  it('refuses a malformed digest, identifier, empty version, unknown mechanism, acquisition or explicitness', () => {
    expect(errorsOf(exact({ exact_artifact: identity({ digest: 'sha256:ABC' }) }))).toEqual([shape('exact_artifact.digest', 'expected a digest sha256:<64 lowercase hex digits>')]);
    expect(errorsOf(exact({ exact_artifact: identity({ artifact_id: '-x' }) }))).toEqual([shape('exact_artifact.artifact_id', 'expected an identifier of 1 to 256 characters')]);
    expect(errorsOf(exact({ exact_artifact: identity({ version: '' }) }))).toEqual([shape('exact_artifact.version', 'expected a text of 1 to 256 characters')]);
    expect(errorsOf(exact({ permitted_routes: [route('magic')] }))).toEqual([shape('permitted_routes.0.mechanism.mechanism', 'or an extension x-<authority>:<term>')]);
    expect(errorsOf(exact({ permitted_routes: [route('exact-artifact', { acquisition: 'download' })] }))).toEqual([shape('permitted_routes.0.acquisition', 'expected one of pull, copy, import, local-lookup, none')]);
    expect(errorsOf(exact({ explicitness: 'Exact' }))).toEqual([shape('explicitness', 'expected one of exact, constrained, open')]);
  });

  it('requires permitted routes, allowed values, and bounds texts in characters', () => {
    expect(errorsOf(exact({ permitted_routes: [] }))).toEqual([shape('permitted_routes', 'expected a non-empty list of permitted routes')]);
    expect(errorsOf(constrained({ constraints: [constraint([])] }))).toEqual([shape('constraints.0.allowed_values')]);
    expect(errorsOf(constrained({ constraints: [{ ...constraint(), kind: 'k'.repeat(129) }] }))).toEqual([shape('constraints.0.kind', 'expected an identifier of 1 to 128 characters')]);
  });
});

describe('what an artifact requirement holds by its explicitness', () => {
  it('names exactly one artifact, satisfied only by exact-artifact routes, when exact', () => {
    expect(errorsOf(exact({ exact_artifact: null }))).toEqual([invalid(`an exact artifact requirement names its one immutable artifact: set ${REQ}.exact_artifact.`)]);
    expect(errorsOf(exact({ constraints: [constraint()] }))).toEqual([invalid('an exact artifact requirement admits no alternatives: remove constraints.')]);
    expect(errorsOf(exact({ permitted_routes: [route('published-candidate')] }))).toEqual([
      invalid("an exact artifact requirement is satisfied only by the exact-artifact mechanism: make every permitted route's mechanism exact-artifact."),
    ]);
  });

  it("selects, when exact, the source's own name and version (version * when not given)", () => {
    expect(errorsOf(exact(), { version: '24.04' })).toEqual([
      invalid(`the exact artifact ubuntu 22.04 is not what ${AT} selects (ubuntu 24.04): make the source's name and version the artifact's artifact_id and version.`),
    ]);
    expect(errorsOfSource({ name: 'ubuntu', artifact_requirement: exact({ exact_artifact: identity({ version: '*' }) }) })).toEqual([]);
  });

  it('bounds the choice without an exact artifact when constrained', () => {
    expect(errorsOf(constrained({ exact_artifact: identity() }))).toEqual([invalid(`a constrained artifact requirement names no exact artifact: remove ${REQ}.exact_artifact, or make it exact.`)]);
    expect(errorsOf(constrained({ constraints: [] }))).toEqual([
      invalid(`a constrained artifact requirement bounds its choice: give ${REQ} constraints, candidates, locked_inputs or materialization_specifications.`),
    ]);
  });

  it('leaves the choice open when open', () => {
    expect(errorsOf(open({ candidates: [{ candidate_id: 'c', artifact: identity() }] }))).toEqual([
      invalid('an open artifact requirement leaves the choice open: remove candidates, or make it constrained.'),
    ]);
  });
});

describe('how an artifact requirement holds together', () => {
  it('repeats no id, route, ref or allowed value', () => {
    expect(errorsOf(constrained({ constraints: [constraint(), constraint()] }))).toEqual([invalid(`${REQ} repeats one of its constraint ids: make each distinct.`)]);
    expect(errorsOf(exact({ permitted_routes: [route(), route()] }))).toEqual([invalid(`${REQ} repeats one of its permitted routes: make each distinct.`)]);
    expect(errorsOf(exact({ trust_policy_refs: ['a', 'a'] }))).toEqual([invalid(`${REQ} repeats one of its trust policy refs: make each distinct.`)]);
    expect(errorsOf(constrained({ constraints: [constraint(['u', 'u'])] }))).toEqual([invalid('artifact constraint "os" allows u more than once: list each value once.')]);
  });

  it('materializes by the materialization-specification mechanism or an extension, from declared locked inputs listed once', () => {
    expect(errorsOf(constrained({ materialization_specifications: [specification({ profile: mechanism('exact-artifact') })], locked_inputs: [lockedInput()] }))).toEqual([
      invalid('materialization specification "build" uses mechanism exact-artifact: use materialization-specification, or an extension x-<authority>:<term>.'),
    ]);
    expect(errorsOf(constrained({ materialization_specifications: [specification()] }))).toEqual([
      invalid(`materialization specifications name locked inputs base, which ${REQ}.locked_inputs does not declare: declare them or fix the names.`),
    ]);
    expect(errorsOf(constrained({ materialization_specifications: [specification({ locked_input_ids: ['base', 'base'] })], locked_inputs: [lockedInput()] }))).toEqual([
      invalid('materialization specification "build" lists locked input base more than once: list each once.'),
    ]);
  });
});
