import { isIntegerSource } from './authored-values';
import { Diagnostic, error } from './diagnostics';
import { ArtifactRequirementDocument, ImageBuildDocument, ImageNamedValueDocument, ScenarioDocument, SourceDocument } from './document';

/**
 * The rules RAES 3.3's models check of a source's artifact requirement and build beyond each field's
 * shape (raes/_source.py: ArtifactConstraint, ArtifactMaterializationSpecification, ArtifactRequirement,
 * Source.validate_exact_requirement_selector; raes/image_provenance.py). Where RAES stops at its first
 * problem, each is reported.
 */

type Report = (message: string) => void;

const repeated = (values: ReadonlyArray<string>): string[] => [...new Set(values.filter((v, i) => values.indexOf(v) !== i))];

const checkRequirement = (requirement: ArtifactRequirementDocument, at: string, report: Report): void => {
  const constraints = requirement.constraints ?? [];
  const candidates = requirement.candidates ?? [];
  const lockedInputs = requirement.locked_inputs ?? [];
  const specifications = requirement.materialization_specifications ?? [];
  for (const constraint of constraints) {
    const values = repeated(constraint.allowed_values);
    if (values.length > 0) report(`artifact constraint "${constraint.constraint_id}" allows ${values.join(', ')} more than once: list each value once.`);
  }
  for (const specification of specifications) {
    const mechanism = specification.profile.mechanism;
    if (mechanism !== 'materialization-specification' && !mechanism.startsWith('x-')) {
      report(`materialization specification "${specification.specification_id}" uses mechanism ${mechanism}: use materialization-specification, or an extension x-<authority>:<term>.`);
    }
    const inputs = repeated(specification.locked_input_ids ?? []);
    if (inputs.length > 0) report(`materialization specification "${specification.specification_id}" lists locked input ${inputs.join(', ')} more than once: list each once.`);
  }
  const identities: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ['constraint ids', constraints.map((c) => c.constraint_id)],
    ['candidate ids', candidates.map((c) => c.candidate_id)],
    ['locked input ids', lockedInputs.map((i) => i.input_id)],
    ['materialization specification ids', specifications.map((m) => m.specification_id)],
    ['permitted routes', requirement.permitted_routes.map((r) => JSON.stringify([r.mechanism.mechanism, r.mechanism.profile, r.mechanism.version, r.acquisition, r.timing]))],
    ['trust policy refs', requirement.trust_policy_refs ?? []],
    ['associated artifact manifest refs', requirement.associated_artifact_manifest_refs ?? []],
  ];
  for (const [what, values] of identities) {
    if (repeated(values).length > 0) report(`${at} repeats one of its ${what}: make each distinct.`);
  }
  const exact = requirement.exact_artifact ?? null;
  const alternatives = [
    ['constraints', constraints.length],
    ['candidates', candidates.length],
    ['locked_inputs', lockedInputs.length],
    ['materialization_specifications', specifications.length],
  ] as const;
  const given = (names: ReadonlyArray<string>): string[] => alternatives.filter(([name, count]) => names.includes(name) && count > 0).map(([name]) => name);
  if (requirement.explicitness === 'exact') {
    if (exact === null) report(`an exact artifact requirement names its one immutable artifact: set ${at}.exact_artifact.`);
    const others = given(['constraints', 'candidates', 'locked_inputs', 'materialization_specifications']);
    if (others.length > 0) report(`an exact artifact requirement admits no alternatives: remove ${others.join(', ')}.`);
    if (requirement.permitted_routes.some((r) => r.mechanism.mechanism !== 'exact-artifact')) {
      report(`an exact artifact requirement is satisfied only by the exact-artifact mechanism: make every permitted route's mechanism exact-artifact.`);
    }
  } else {
    if (exact !== null) report(`a${requirement.explicitness === 'open' ? 'n' : ''} ${requirement.explicitness} artifact requirement names no exact artifact: remove ${at}.exact_artifact, or make it exact.`);
    if (requirement.explicitness === 'constrained' && given(['constraints', 'candidates', 'locked_inputs', 'materialization_specifications']).length === 0) {
      report(`a constrained artifact requirement bounds its choice: give ${at} constraints, candidates, locked_inputs or materialization_specifications.`);
    }
    const forbidden = requirement.explicitness === 'open' ? given(['constraints', 'candidates', 'materialization_specifications']) : [];
    if (forbidden.length > 0) report(`an open artifact requirement leaves the choice open: remove ${forbidden.join(', ')}, or make it constrained.`);
  }
  const declared = new Set(lockedInputs.map((i) => i.input_id));
  const missing = [...new Set(specifications.flatMap((m) => m.locked_input_ids ?? []))].filter((id) => !declared.has(id)).sort();
  if (missing.length > 0) report(`materialization specifications name locked inputs ${missing.join(', ')}, which ${at}.locked_inputs does not declare: declare them or fix the names.`);
};

/** Classifications whose value RAES withholds (_IMAGE_ENV_REDACTED_CLASSIFICATIONS). */
const WITHHELD = new Set(['redacted', 'operator_secret']);

/** A build argument's or image environment default's own rule, and that names are not repeated (what: "build argument"). */
const checkNamedValues = (values: ReadonlyArray<ImageNamedValueDocument>, what: string, at: string, report: Report): void => {
  const seen = new Set<string>();
  values.forEach((value, i) => {
    const classification = value.value_classification ?? 'unknown';
    if ((value.value ?? '') !== '' && WITHHELD.has(classification)) {
      report(`${what} "${value.name}" is classified ${classification}, so its value is withheld: remove ${at}.${i}.value.`);
    }
    if (seen.has(value.name)) report(`${what} "${value.name}" is declared twice in ${at}: declare it once.`);
    seen.add(value.name);
  });
};

const checkBuild = (build: ImageBuildDocument, at: string, authoredNumbers: ReadonlyMap<string, string>, diagnostics: Diagnostic[]): void => {
  const report: Report = (message) => diagnostics.push(error('scenario.source-invalid', at, message));
  (build.layers ?? []).forEach((_, i) => {
    const path = `${at}.layers.${i}.size`;
    const source = authoredNumbers.get(path);
    if (source !== undefined && !isIntegerSource(source)) {
      diagnostics.push(error('scenario.shape-invalid', path, `expected a whole number at ${path}, got ${source}, which RAES reads as a float: write it without a fraction or exponent.`));
    }
  });
  checkNamedValues(build.build_args ?? [], 'build argument', `${at}.build_args`, report);
  const config = build.config ?? null;
  if (config !== null) checkNamedValues(config.default_environment ?? [], 'image environment variable', `${at}.config.default_environment`, report);
  const identifiers = new Set<string>();
  (build.source_inputs ?? []).forEach((input, i) => {
    if ((input.checksum ?? '') !== '' && (input.checksum_algorithm ?? '') === '') report(`source input "${input.identifier}" gives a checksum without its algorithm: set ${at}.source_inputs.${i}.checksum_algorithm.`);
    if ((input.checksum_algorithm ?? '') !== '' && (input.checksum ?? '') === '') report(`source input "${input.identifier}" gives a checksum_algorithm without a checksum: set ${at}.source_inputs.${i}.checksum.`);
    if (identifiers.has(input.identifier)) report(`source input "${input.identifier}" is declared twice in ${at}.source_inputs: declare it once.`);
    identifiers.add(input.identifier);
  });
  const attestation = build.attestation ?? null;
  if (attestation !== null && attestation.status === 'absent' && attestation.verification === 'verified') {
    report(`an absent attestation cannot have been verified: set ${at}.attestation.verification to another result, or its status to present.`);
  }
};

const checkSource = (source: SourceDocument | null | undefined, at: string, authoredNumbers: ReadonlyMap<string, string>, diagnostics: Diagnostic[]): void => {
  if (source === undefined || source === null || typeof source === 'string') return;
  const build = source.build ?? null;
  if (build !== null) checkBuild(build, `${at}.build`, authoredNumbers, diagnostics);
  const requirement = source.artifact_requirement ?? null;
  if (requirement === null) return;
  const here = `${at}.artifact_requirement`;
  const report: Report = (message) => diagnostics.push(error('scenario.source-invalid', here, message));
  checkRequirement(requirement, here, report);
  const exact = requirement.exact_artifact ?? null;
  const version = source.version ?? '*';
  if (requirement.explicitness === 'exact' && exact !== null && (source.name !== exact.artifact_id || version !== exact.version)) {
    report(`the exact artifact ${exact.artifact_id} ${exact.version} is not what ${at} selects (${source.name} ${version}): make the source's name and version the artifact's artifact_id and version.`);
  }
};

/** Every node's and content's source. `authoredNumbers` (by path, how a number was written) tells a layer size written as a float. */
export const checkSources = (scenario: ScenarioDocument, authoredNumbers: ReadonlyMap<string, string> = new Map()): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  for (const [name, node] of Object.entries(scenario.nodes ?? {})) checkSource(node.source, `nodes.${name}.source`, authoredNumbers, diagnostics);
  for (const [name, content] of Object.entries(scenario.content ?? {})) checkSource(content.source, `content.${name}.source`, authoredNumbers, diagnostics);
  return diagnostics;
};
