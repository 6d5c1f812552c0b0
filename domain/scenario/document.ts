import * as t from 'io-ts';
import { isAddressSegment } from '../addresses';
import { AuthoredBoolean, AuthoredNumber, MAX_EXACT_INTEGER, asciiDigits, authoredInteger, authoredIntegerValue } from './authored-values';
import {
  LIMITS,
  NonBlankString,
  NonEmptyString,
  PYTHON_WHITE_SPACE,
  isBlank,
  distinctList,
  namedMap,
  namedMapOf,
  nonBlankList,
  nonEmptyArray,
  normalizedOneOf,
  oneOf,
  orNull,
  pythonStrip,
  strictObject,
  uniqueNames,
} from './decoding';
import {
  ADVANCEMENT_MODES,
  ARGUMENT_CARDINALITIES,
  ARGUMENT_NORMALIZATIONS,
  ARGUMENT_OMISSIONS,
  ARGUMENT_VALUE_TYPES,
  BEHAVIORAL_GRANULARITIES,
  BOUNDARY_CLASSES,
  CLOCK_AUTHORITIES,
  CLOCK_MONOTONICITIES,
  CONSTRAINT_KINDS,
  CONTENT_TYPES,
  EFFECT_CLASSES,
  ENDPOINT_PERSONAS,
  FAILURE_CLASSES,
  INTERACTION_CLASSES,
  INJECT_DELIVERY_KINDS,
  LIFECYCLE_STATES,
  MAPPING_KINDS,
  MIXED_CONTROL_AUTHORITY_STATUSES,
  MIXED_CONTROL_ORDER_STRATEGIES,
  MIXED_CONTROL_TRANSITION_KINDS,
  NODE_TYPES,
  PRECONDITION_CLASSES,
  REPLAY_BEHAVIORS,
  SEARCH_INDEX_FIELD_SEMANTICS,
  RESET_BEHAVIORS,
  RESOURCE_ACCOUNTING_MODES,
  RESOURCE_KINDS,
  RESOURCE_OWNER_KINDS,
  RESOURCE_RESET_MODES,
  ROLES,
  SYNCHRONIZATION_MODES,
  TEMPORAL_CONTRACT_KINDS,
  TEMPORAL_CONTRACT_TIME_DOMAINS,
  TEMPORAL_EVENT_POINTS,
  TEMPORAL_SUPPORT_MODES,
  TIME_DOMAIN_KINDS,
  TIME_DOMAIN_VISIBILITIES,
  TIME_EPOCHS,
  TIMING_DISCLOSURE_KINDS,
  VIEW_DISPOSITIONS,
  VIEW_HISTORY_EVENT_TYPES,
  VIEW_TRANSITION_KINDS,
  canonicalFieldKey,
  holdsNames,
  normalizedEnumValue,
} from './raes-vocabulary';

/**
 * The authored scenario (docs/rules.md, authoring) as RAES 3.3 SDL defines it. The sections the engine reads
 * are typed field by field as RAES's models type them (required fields, closed value lists, no unknown
 * keys); the other sections of the SDL are accepted as mappings and not read. The bounds on counts are
 * RAES's where RAES states one, else the engine's (docs/decisions.md, "Upper bounds of limits and counts").
 */

/** Upper bound of every tick count and tick coordinate the engine reads. */
export const MAX_TICKS = LIMITS.ticks;

const Names = t.array(t.string);
const Strings = t.array(t.string);
const UnknownList = t.array(t.unknown);
const Ticks = authoredInteger(1, MAX_TICKS);
const Tick = authoredInteger(-MAX_TICKS, MAX_TICKS);
const TickCount = authoredInteger(0, MAX_TICKS);
const ActivityTicks = authoredInteger(1, LIMITS.activityTicks);
/** A behavior specification's ref lists: RAES refuses a blank or repeated ref in each. */
const SpecificationRefs = uniqueNames('a list of distinct, non-blank refs');
/** An action contract's expectation lists: RAES refuses a blank or repeated entry in each. */
const ContractEntries = uniqueNames('a list of distinct, non-blank entries');

const MAX_PORT = 65_535;
const IDENTIFIER = '[a-z0-9][a-z0-9_-]{0,63}';
/** RAES's whole-field `${name}` placeholder (dotted names allowed), which an instantiated scenario replaces. */
const VARIABLE_REF = new RegExp(`^\\$\\{(?:(?:${IDENTIFIER}|__private)\\.)*${IDENTIFIER}\\}$`);
/** Whether a value is RAES's whole-field `${name}` placeholder (is_variable_ref). */
export const isVariableRef = (value: unknown): boolean => typeof value === 'string' && VARIABLE_REF.test(value);
const isPortNumber = (n: number): boolean => Number.isInteger(n) && n >= 1 && n <= MAX_PORT;

/** RAES's portable identifier (1 to 64 of a-z, 0-9, "_", "-", starting with a letter or digit), where it types a field so. */
const PORTABLE_IDENTIFIER_RULE = 'a portable identifier: use 1 to 64 lowercase letters, digits, "-" or "_", starting with a letter or digit';
/** The port a text of digits names (parse_int_or_var: Python's white space around, digits of any script), or undefined. */
export const portOfText = (port: string): number | undefined => {
  const text = pythonStrip(port);
  return /^-?\p{Nd}+$/u.test(text) ? Number(asciiDigits(text)) : undefined;
};
/** A service port as RAES reads it: 1 to 65535, as a number or a string of digits, or a placeholder; a float is refused where nodes are checked. */
const isPort = (port: unknown): port is number | string =>
  typeof port === 'number'
    ? isPortNumber(port)
    : typeof port === 'string' && (VARIABLE_REF.test(port) || isPortNumber(portOfText(port) ?? 0));
const PortCodec = new t.Type<number | string, unknown, unknown>(
  `a port from 1 to ${MAX_PORT} (or a \${variable} placeholder)`,
  isPort,
  (u, context) => (isPort(u) ? t.success(u) : t.failure(u, context)),
  t.identity,
);

export const ServiceCodec = strictObject(
  'Service',
  { port: PortCodec },
  { name: t.string, protocol: t.string, description: t.string },
);

/** Python's white space, as `\s` reads it in RAES's patterns. */
const WHITE = PYTHON_WHITE_SPACE;
/** RAES's byte units (runtime_values._BYTE_UNITS), matched without regard to case. */
const BYTE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1_000,
  kib: 1_024,
  mb: 1_000_000,
  mib: 1_048_576,
  gb: 1_000_000_000,
  gib: 1_073_741_824,
  tb: 1_000_000_000_000,
  tib: 1_099_511_627_776,
};
const DIGITS_TEXT = /^\p{Nd}+$/u;
const RAM_TEXT = new RegExp(`^${WHITE}*(\\p{Nd}+(?:\\.\\p{Nd}+)?)${WHITE}*(${Object.keys(BYTE_UNITS).join('|')})${WHITE}*$`, 'iu');
const CPU_TEXT = /^-?\p{Nd}+$/u;

/**
 * A node's RAM as RAES reads it (runtime_values.parse_ram): a `${variable}` placeholder, a whole number
 * of bytes from 1, or a text of digits, or of a number and a unit ("4 GiB", "512mb"), of at least one
 * byte. A number written as a float (2.0) is refused where nodes are checked (validate-nodes).
 */
const ramBytes = (u: unknown): number | string | undefined => {
  if (typeof u === 'string' && VARIABLE_REF.test(u)) return u;
  if (typeof u === 'number') return Number.isInteger(u) && u >= 1 ? u : undefined;
  if (typeof u !== 'string') return undefined;
  const text = pythonStrip(u);
  if (DIGITS_TEXT.test(text)) {
    const bytes = Number(asciiDigits(text));
    return bytes >= 1 ? bytes : undefined;
  }
  const match = RAM_TEXT.exec(text);
  const unit = match?.[2]?.toLowerCase().replace(/\u212a/g, 'k');
  const scale = unit === undefined ? undefined : BYTE_UNITS[unit];
  if (match === null || scale === undefined) return undefined;
  const bytes = Math.trunc(Number(asciiDigits(match[1] as string)) * scale);
  return bytes >= 1 ? bytes : undefined;
};
/** A codec of the value `read` gives (the input as RAES reads it), refusing what it gives nothing for. */
const readingCodec = (name: string, read: (u: unknown) => number | string | undefined) =>
  new t.Type<number | string, unknown, unknown>(
    name,
    (u): u is number | string => read(u) !== undefined,
    (u, context) => {
      const value = read(u);
      return value === undefined ? t.failure(u, context) : t.success(value);
    },
    t.identity,
  );
const RamCodec = readingCodec('a number of bytes from 1, or a size with a unit such as "4 GiB" (or a ${variable} placeholder)', ramBytes);

/** A whole number from `min` as RAES's parse_int_or_var reads it: a number, a text of digits, or a placeholder. */
const wholeNumberOrVariable =
  (min: number) =>
  (u: unknown): number | string | undefined => {
    if (typeof u === 'string' && VARIABLE_REF.test(u)) return u;
    if (typeof u === 'number') return Number.isInteger(u) && u >= min ? u : undefined;
    if (typeof u !== 'string') return undefined;
    const text = pythonStrip(u);
    if (!CPU_TEXT.test(text)) return undefined;
    const count = Number(asciiDigits(text));
    return count >= min ? count : undefined;
  };
/** A node's CPU count (parse_int_or_var, minimum 1). */
const CpuCodec = readingCodec('an integer from 1 (or a ${variable} placeholder)', wholeNumberOrVariable(1));

/** RAES's governed extension syntax x-<owner>:<term> (_BEHAVIOR_SPEC_EXTENSION_KEY_RE, _EXTENSION_MECHANISM_PATTERN), matched whole. */
const EXTENSION_KEY = /^x-[a-z0-9]+(?:-[a-z0-9]+)*:[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A text of `min` to `max` characters (counted as Python counts them), matching `pattern` when given. */
const boundedText = (min: number, max: number, pattern?: RegExp, what?: string) =>
  t.refinement(
    t.string,
    (s) => {
      const length = [...s].length;
      return length >= min && length <= max && (pattern === undefined || pattern.test(s));
    },
    what ?? `a text of ${min} to ${max} characters`,
  );
/** RAES's artifact identifiers (_PORTABLE_IDENTIFIER_PATTERN in raes/_source.py). */
const ARTIFACT_ID = /^[a-zA-Z0-9][a-zA-Z0-9._:/@+-]*$/;
const artifactId = (max: number) => boundedText(1, max, ARTIFACT_ID, `an identifier of 1 to ${max} characters: a letter or digit, then letters, digits or . _ : / @ + -`);
const Digest = boundedText(0, Number.MAX_SAFE_INTEGER, /^sha256:[a-f0-9]{64}$/, 'a digest sha256:<64 lowercase hex digits>');
const ArtifactRef = boundedText(1, 1024);

export const ArtifactIdentityCodec = strictObject(
  'ArtifactIdentity',
  { artifact_id: artifactId(256), version: boundedText(1, 256), digest: Digest, media_type: boundedText(1, 256) },
  {},
);

/** A mechanism RAES admits: one of its portable mechanisms or a governed extension x-<authority>:<term>. */
const ARTIFACT_MECHANISMS = ['exact-artifact', 'backend-owned-artifact', 'published-candidate', 'dynamic-composition', 'materialization-specification'];
const MechanismCodec = boundedText(
  1,
  128,
  undefined,
  `one of ${ARTIFACT_MECHANISMS.join(', ')}, or an extension x-<authority>:<term>`,
);
export const ArtifactMechanismProfileCodec = strictObject(
  'ArtifactMechanismProfile',
  { mechanism: t.refinement(MechanismCodec, (m) => ARTIFACT_MECHANISMS.includes(m) || EXTENSION_KEY.test(m), MechanismCodec.name), profile: artifactId(256), version: boundedText(1, 128), digest: Digest },
  {},
);

export const ArtifactRequirementCodec = strictObject(
  'ArtifactRequirement',
  {
    requirement_id: artifactId(256),
    explicitness: oneOf(['exact', 'constrained', 'open'] as const),
    permitted_routes: nonEmptyArray(
      strictObject(
        'ArtifactSatisfactionRoute',
        {
          mechanism: ArtifactMechanismProfileCodec,
          acquisition: oneOf(['pull', 'copy', 'import', 'local-lookup', 'none'] as const),
          timing: oneOf(['publication', 'pack-ingestion', 'backend-preparation', 'realization'] as const),
        },
        {},
      ),
      'a non-empty list of permitted routes',
    ),
  },
  {
    exact_artifact: orNull(ArtifactIdentityCodec),
    constraints: t.array(
      strictObject('ArtifactConstraint', { constraint_id: artifactId(256), kind: artifactId(128), allowed_values: nonEmptyArray(boundedText(1, 1024), 'a non-empty list of texts of 1 to 1024 characters') }, {}),
    ),
    candidates: t.array(strictObject('ArtifactCandidate', { candidate_id: artifactId(256), artifact: ArtifactIdentityCodec }, {})),
    locked_inputs: t.array(
      strictObject('ArtifactLockedInput', { input_id: artifactId(256), artifact: ArtifactIdentityCodec, associated_artifact_manifest_ref: ArtifactRef, trust_policy_ref: ArtifactRef }, {}),
    ),
    materialization_specifications: t.array(
      strictObject(
        'ArtifactMaterializationSpecification',
        { specification_id: artifactId(256), profile: ArtifactMechanismProfileCodec, digest: Digest },
        { locked_input_ids: t.array(artifactId(256)) },
      ),
    ),
    trust_policy_refs: t.array(ArtifactRef),
    associated_artifact_manifest_refs: t.array(ArtifactRef),
  },
);
export type ArtifactRequirementDocument = t.TypeOf<typeof ArtifactRequirementCodec>;

/** An enum RAES reads with parse_enum_or_var: matched as RAES matches enums (case, "-" for "_"), or a placeholder. */
const enumOrVariable = (values: ReadonlyArray<string>) =>
  new t.Type<string, unknown, unknown>(
    `one of ${values.join(', ')} (or a \${variable} placeholder)`,
    (u): u is string => typeof u === 'string',
    (u, context) => {
      if (typeof u !== 'string') return t.failure(u, context);
      if (VARIABLE_REF.test(u)) return t.success(u);
      const value = normalizedEnumValue(u);
      return values.includes(value) ? t.success(value) : t.failure(u, context);
    },
    t.identity,
  );
const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = { true: true, '1': true, yes: true, on: true, false: false, '0': false, no: false, off: false };
/** true or false as RAES's parse_bool_or_var reads it (also the words true/false, 1/0, yes/no, on/off), or a placeholder. */
const BooleanOrVariable = new t.Type<boolean | string, unknown, unknown>(
  'true or false (or a ${variable} placeholder)',
  (u): u is boolean | string => typeof u === 'boolean' || typeof u === 'string',
  (u, context) => {
    if (typeof u === 'boolean') return t.success(u);
    if (typeof u !== 'string') return t.failure(u, context);
    if (VARIABLE_REF.test(u)) return t.success(u);
    const word = BOOLEAN_WORDS[pythonStrip(u).toLowerCase()];
    return word === undefined ? t.failure(u, context) : t.success(word);
  },
  t.identity,
);
/** A whole number from 0 (parse_int_or_var); a float is refused where sources are checked. */
const CountOrVariable = readingCodec('an integer >= 0 (or a ${variable} placeholder)', wholeNumberOrVariable(0));
/** An absolute path (starting with "/") or a placeholder (absolute_path_or_var); `orEmpty` also takes "" where RAES skips the check. */
const absolutePath = (orEmpty: boolean) =>
  t.refinement(t.string, (s) => (orEmpty && s === '') || VARIABLE_REF.test(s) || s.startsWith('/'), `an absolute path${orEmpty ? ' or ""' : ''} (or a \${variable} placeholder)`);
/** A list of texts, or one text standing for a list of it, or null for none (coerce_string_list). */
const TextList = new t.Type<string[], unknown, unknown>(
  'a list of strings, or one string',
  (u): u is string[] => Array.isArray(u) && u.every((x) => typeof x === 'string'),
  (u, context) => {
    if (u === null) return t.success([]);
    if (typeof u === 'string') return t.success([u]);
    return Array.isArray(u) && u.every((x) => typeof x === 'string') ? t.success(u as string[]) : t.failure(u, context);
  },
  t.identity,
);
/** An environment or build argument name: non-blank, without "=". */
const VariableName = t.refinement(t.string, (s) => !isBlank(s) && !s.includes('='), 'a non-blank name without "="');
const VALUE_CLASSIFICATIONS = ['plain', 'redacted', 'secret_fixture', 'operator_secret', 'unknown', 'other'];
const namedValue = (name: string) =>
  strictObject(name, { name: VariableName }, { value: t.string, value_classification: enumOrVariable(VALUE_CLASSIFICATIONS), description: t.string });
export type ImageNamedValueDocument = t.TypeOf<ReturnType<typeof namedValue>>;

export const ImageBuildCodec = strictObject(
  'ContainerImageBuildProvenance',
  {},
  {
    base_image: t.string,
    base_image_digest: t.string,
    dockerfile_path: t.string,
    instructions: t.array(
      strictObject(
        'DockerfileInstruction',
        {
          instruction: enumOrVariable(['from', 'arg', 'env', 'run', 'copy', 'add', 'workdir', 'entrypoint', 'cmd', 'healthcheck', 'label', 'expose', 'user', 'volume', 'shell', 'stopsignal', 'onbuild', 'maintainer', 'other']),
        },
        { arguments: TextList, description: t.string },
      ),
    ),
    layers: t.array(
      strictObject('ImageLayer', {}, { digest: t.string, created_by: t.string, size: orNull(CountOrVariable), empty: orNull(BooleanOrVariable), description: t.string }),
    ),
    build_args: t.array(namedValue('ImageBuildArg')),
    copied_sources: t.array(
      strictObject('ImageCopiedSource', { source_path: NonBlankString, destination_path: absolutePath(false) }, { from_stage: t.string, description: t.string }),
    ),
    config: orNull(
      strictObject(
        'ImageConfig',
        {},
        {
          entrypoint: TextList,
          command: TextList,
          working_directory: absolutePath(true),
          exposed_ports: TextList,
          labels: t.record(t.string, t.string),
          default_environment: t.array(namedValue('ImageEnvironmentDefault')),
          description: t.string,
        },
      ),
    ),
    source_inputs: t.array(
      strictObject(
        'ImageSourceInput',
        { identifier: NonBlankString },
        { source_path: t.string, destination_path: absolutePath(true), checksum: t.string, checksum_algorithm: t.string, description: t.string },
      ),
    ),
    attestation: orNull(
      strictObject(
        'ImageAttestation',
        {},
        {
          status: enumOrVariable(['present', 'absent', 'unknown']),
          verification: enumOrVariable(['verified', 'failed', 'unverified', 'not_applicable', 'unknown']),
          attestation_type: enumOrVariable(['oci', 'in_toto', 'slsa', 'other', 'none', 'unknown']),
          predicate_type: t.string,
          evidence_reference: t.string,
          description: t.string,
        },
      ),
    ),
    description: t.string,
  },
);
export type ImageBuildDocument = t.TypeOf<typeof ImageBuildCodec>;

/**
 * A node's or content's source (raes/_source.py, Source): a text, which RAES expands to that name at
 * version "*", or a mapping with a name, a version, a build (raes/image_provenance.py) and an artifact
 * requirement.
 */
const SourceMappingCodec = strictObject(
  'Source',
  { name: t.string },
  { version: t.string, build: orNull(ImageBuildCodec), artifact_requirement: orNull(ArtifactRequirementCodec) },
);
export type SourceDocument = string | t.TypeOf<typeof SourceMappingCodec>;
export const SourceCodec = new t.Type<string | t.TypeOf<typeof SourceMappingCodec>, unknown, unknown>(
  'a name, or a mapping (Source) with a name and a version',
  (u): u is string | t.TypeOf<typeof SourceMappingCodec> => typeof u === 'string' || SourceMappingCodec.is(u),
  (u, context) => (typeof u === 'string' ? t.success(u) : typeof u === 'object' && u !== null && !Array.isArray(u) ? SourceMappingCodec.validate(u, context) : t.failure(u, context)),
  t.identity,
);

export const ResourcesCodec = strictObject('Resources', { ram: RamCodec, cpu: CpuCodec }, {});

/** A node's endpoint persona (parse_enum_or_var over EndpointPersona): matched as RAES matches enums, or a placeholder. */
const PersonaCodec = new t.Type<string, unknown, unknown>(
  `one of ${ENDPOINT_PERSONAS.join(', ')} (or a \${variable} placeholder)`,
  (u): u is string => typeof u === 'string',
  (u, context) => {
    if (typeof u !== 'string') return t.failure(u, context);
    if (VARIABLE_REF.test(u)) return t.success(u);
    const persona = normalizedEnumValue(u);
    return (ENDPOINT_PERSONAS as ReadonlyArray<string>).includes(persona) ? t.success(persona) : t.failure(u, context);
  },
  t.identity,
);

/** A node's features, conditions or injects: names mapped to a role name ("" for none), or a list of names (RAES's shorthand for each mapped to ""). */
const NodeNamesCodec = new t.Type<Record<string, string> | string[], unknown, unknown>(
  'a mapping of names to role names, or a list of names',
  (u): u is Record<string, string> | string[] => typeof u === 'object' && u !== null,
  (u, context) => {
    if (Array.isArray(u)) return u.every((x) => typeof x === 'string') ? t.success(u as string[]) : t.failure(u, context);
    if (typeof u === 'object' && u !== null && Object.values(u).every((x) => typeof x === 'string')) return t.success(u as Record<string, string>);
    return t.failure(u, context);
  },
  t.identity,
);
/** A login role on a VM (raes/nodes.py, Role): a username, or a mapping with a username and entities. */
const NodeRoleMappingCodec = strictObject('Role', { username: t.string }, { entities: t.array(t.string) });
const NodeRoleCodec = new t.Type<string | t.TypeOf<typeof NodeRoleMappingCodec>, unknown, unknown>(
  'a username, or a mapping (Role) with a username',
  (u): u is string | t.TypeOf<typeof NodeRoleMappingCodec> => typeof u === 'string' || NodeRoleMappingCodec.is(u),
  (u, context) => (typeof u === 'string' ? t.success(u) : typeof u === 'object' && u !== null && !Array.isArray(u) ? NodeRoleMappingCodec.validate(u, context) : t.failure(u, context)),
  t.identity,
);
const ASSET_VALUE_LEVELS = ['none', 'low', 'medium', 'high', 'critical'];
const AssetValueCodec = strictObject(
  'AssetValue',
  {},
  { confidentiality: enumOrVariable(ASSET_VALUE_LEVELS), integrity: enumOrVariable(ASSET_VALUE_LEVELS), availability: enumOrVariable(ASSET_VALUE_LEVELS) },
);

export const NodeCodec = strictObject(
  'Node',
  { type: normalizedOneOf(NODE_TYPES, normalizedEnumValue) },
  {
    services: t.array(ServiceCodec),
    resources: orNull(ResourcesCodec),
    endpoint_persona: orNull(PersonaCodec),
    source: orNull(SourceCodec),
    description: t.string,
    os: orNull(enumOrVariable(['windows', 'linux', 'macos', 'freebsd', 'other'])),
    os_version: t.string,
    features: NodeNamesCodec,
    conditions: NodeNamesCodec,
    injects: NodeNamesCodec,
    vulnerabilities: t.array(t.string),
    roles: namedMapOf(NodeRoleCodec, 'roles by name', isAddressSegment, PORTABLE_IDENTIFIER_RULE),
    asset_value: orNull(AssetValueCodec),
  },
  ['runtime'],
);
export type NodeDocument = t.TypeOf<typeof NodeCodec>;

export const RoleCodec = normalizedOneOf(ROLES, normalizedEnumValue);
export type Role = t.TypeOf<typeof RoleCodec>;

/** An entity (raes/entities.py, Entity), nesting entities of its own by portable identifier. */
export interface EntityDocument {
  role?: Role | null;
  entities?: Record<string, EntityDocument>;
  name?: string;
  description?: string;
  mission?: string;
  categories?: string[];
  vulnerabilities?: string[];
  facts?: Record<string, string>;
  events?: string[];
}
export const EntityCodec: t.Type<EntityDocument, unknown, unknown> = t.recursion('Entity', () =>
  strictObject(
    'Entity',
    {},
    {
      role: orNull(RoleCodec),
      entities: namedMapOf(EntityCodec, 'entities by name', isAddressSegment, PORTABLE_IDENTIFIER_RULE),
      name: t.string,
      description: t.string,
      mission: t.string,
      categories: t.array(t.string),
      vulnerabilities: t.array(t.string),
      facts: t.record(t.string, t.string),
      events: t.array(t.string),
    },
  ),
);

/** A service materialization's ref lists: distinct and non-blank, and non-empty where RAES requires it. */
const MaterializationRefs = uniqueNames('a list of distinct, non-blank refs');
const RequiredMaterializationRefs = uniqueNames('a non-empty list of distinct, non-blank refs', { nonEmpty: true });
const materializationFields = {
  target_service_ref: NonEmptyString,
  readback_assertion_refs: RequiredMaterializationRefs,
  evidence_requirement_refs: RequiredMaterializationRefs,
  observation_boundary_refs: RequiredMaterializationRefs,
};
const materializationOptional = {
  profile_version: t.literal('1'),
  shared_service_relationship_ref: t.string,
  ordering_content_refs: MaterializationRefs,
};

export const ServiceContentMaterializationCodec = strictObject(
  'ServiceMaterialization',
  {
    ...materializationFields,
    requirements: strictObject(
      'ServiceMaterializationRequirements',
      {},
      { operation: t.literal('ensure-owned-items'), conflict_policy: t.literal('reject-unowned-collision'), readback: t.literal('canonical-content-digest') },
    ),
  },
  { ...materializationOptional, interface_profile: t.literal('service-content') },
);

export const SEARCH_INDEX_PROFILE = 'service-search-index-schema';
export const SearchIndexMaterializationCodec = strictObject(
  'ServiceSearchIndexSchemaMaterialization',
  {
    ...materializationFields,
    interface_profile: t.literal(SEARCH_INDEX_PROFILE),
    requirements: strictObject(
      'ServiceSearchIndexSchemaRequirements',
      {
        field_semantics: t.refinement(
          namedMapOf(oneOf(SEARCH_INDEX_FIELD_SEMANTICS), 'field semantics', isAddressSegment, 'a portable identifier: use 1 to 64 lowercase letters, digits, "-" or "_", starting with a letter or digit'),
          (m) => Object.keys(m).length > 0,
          'a mapping of at least one field semantic',
        ),
      },
      {
        operation: t.literal('ensure-search-index-field-schema'),
        conflict_policy: t.literal('reject-unowned-collision'),
        readback: t.literal('canonical-portable-field-schema-digest'),
      },
    ),
  },
  materializationOptional,
);

type ServiceMaterialization = t.TypeOf<typeof ServiceContentMaterializationCodec> | t.TypeOf<typeof SearchIndexMaterializationCodec>;
const MATERIALIZATION_PROFILES = ['service-content', SEARCH_INDEX_PROFILE] as const;
/** Content's service_materialization, by its interface_profile (service-content when absent, as RAES defaults it). */
export const ServiceMaterializationCodec = new t.Type<ServiceMaterialization, unknown, unknown>(
  'a mapping (ServiceMaterialization)',
  (u): u is ServiceMaterialization => ServiceContentMaterializationCodec.is(u) || SearchIndexMaterializationCodec.is(u),
  (u, context) => {
    if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, context);
    const profile = (u as { interface_profile?: unknown }).interface_profile ?? 'service-content';
    if (profile === 'service-content') return ServiceContentMaterializationCodec.validate(u, context);
    if (profile === SEARCH_INDEX_PROFILE) return SearchIndexMaterializationCodec.validate(u, context);
    return t.failure(profile, [...context, { key: 'interface_profile', type: oneOf(MATERIALIZATION_PROFILES), actual: profile }]);
  },
  t.identity,
);

export const ContentCodec = strictObject(
  'Content',
  { type: normalizedOneOf(CONTENT_TYPES, normalizedEnumValue) },
  {
    target: t.string,
    path: t.string,
    destination: t.string,
    source: orNull(SourceCodec),
    items: t.array(
      strictObject('ContentItem', { name: t.refinement(t.string, isAddressSegment, PORTABLE_IDENTIFIER_RULE) }, { display_name: t.string, tags: t.array(t.string), description: t.string }),
    ),
    service_materialization: orNull(ServiceMaterializationCodec),
    description: t.string,
    text: orNull(t.string),
    format: t.string,
    sensitive: BooleanOrVariable,
    tags: t.array(t.string),
  },
);
export type ContentDocument = t.TypeOf<typeof ContentCodec>;

export const AgentCodec = strictObject(
  'Agent',
  { entity: t.string },
  {
    actions: Names,
    observation_boundaries: Names,
    description: t.string,
    starting_accounts: Strings,
    initial_knowledge: orNull(strictObject('InitialKnowledge', {}, { hosts: Strings, subnets: Strings, services: Strings, accounts: Strings })),
    allowed_subnets: Strings,
    starting_assertions: Strings,
    authority_anchors: Strings,
    operating_scope: Strings,
    interactive_access: namedMapOf(
      strictObject('InteractiveAccess', { target_ref: NonEmptyString, channel: enumOrVariable(['ssh', 'rdp']) }, { account_ref: orNull(NonEmptyString) }),
      'interactive access by name',
      isAddressSegment,
      PORTABLE_IDENTIFIER_RULE,
    ),
  },
);

/** An action contract's ref lists (preconditions, effects): RAES refuses a blank or repeated ref in each. */
const ContractRefs = uniqueNames('a list of distinct, non-blank refs');
/** A text an action contract may omit (null is absent), but not leave blank. */
const OptionalText = orNull(NonBlankString);

export const PreconditionCodec = strictObject(
  'Precondition',
  { precondition_id: NonBlankString, precondition_class: oneOf(PRECONDITION_CLASSES), description: NonBlankString },
  { support_refs: ContractRefs, evidence_refs: ContractRefs },
);

export const EffectCodec = strictObject(
  'Effect',
  { effect_id: NonBlankString, effect_class: oneOf(EFFECT_CLASSES), description: NonBlankString },
  { target_refs: ContractRefs, evidence_refs: ContractRefs },
);

export const BackendFailureMappingCodec = strictObject(
  'BackendFailureMapping',
  { backend_error_code: NonBlankString, failure_class: oneOf(FAILURE_CLASSES), diagnostic: NonBlankString },
  {},
);

export const InteractionCodec = strictObject(
  'Interaction',
  { interaction_class: oneOf(INTERACTION_CLASSES), target: NonBlankString, rationale: NonBlankString },
  { related_actions: nonBlankList('a list of non-blank action contract names'), shared_state_refs: nonBlankList('a list of non-blank refs') },
);

export const ExternalMappingCodec = strictObject(
  'ExternalMapping',
  { system: NonBlankString, identifier: NonBlankString, loss_label: NonBlankString, rationale: NonBlankString },
  {},
);

export const TemporalContractCodec = strictObject(
  'TemporalContract',
  {
    temporal_id: NonBlankString,
    temporal_kind: oneOf(TEMPORAL_CONTRACT_KINDS),
    time_domain: oneOf(TEMPORAL_CONTRACT_TIME_DOMAINS),
    clock_authority: NonBlankString,
    event_points: distinctList(oneOf(TEMPORAL_EVENT_POINTS), 'a non-empty list of distinct event points', (p) => p, { nonEmpty: true }),
    description: NonBlankString,
    ordering_basis: NonBlankString,
  },
  {
    window_ref: OptionalText,
    duration_ref: OptionalText,
    reset_boundary: OptionalText,
    replay_boundary: OptionalText,
    randomization_basis: OptionalText,
    backend_disclosure_refs: uniqueNames('a list of distinct, non-blank disclosure ids'),
  },
);
export type TemporalContractDocument = t.TypeOf<typeof TemporalContractCodec>;

export const BackendTimingDisclosureCodec = strictObject(
  'BackendTimingDisclosure',
  {
    disclosure_id: NonBlankString,
    disclosure_kind: oneOf(TIMING_DISCLOSURE_KINDS),
    support_mode: oneOf(TEMPORAL_SUPPORT_MODES),
    description: NonBlankString,
    affected_temporal_ids: uniqueNames('a non-empty list of distinct, non-blank temporal ids', { nonEmpty: true }),
  },
  { limitations: uniqueNames('a list of distinct, non-blank limitations') },
);

/** A value an argument admits as RAES types it: a string, a number or a boolean, each as written. */
export type ArgumentScalar = string | number | boolean;
const isArgumentScalar = (u: unknown): u is ArgumentScalar =>
  typeof u === 'string' || typeof u === 'boolean' || (typeof u === 'number' && Number.isFinite(u));
const ArgumentScalarCodec = new t.Type<ArgumentScalar, ArgumentScalar, unknown>(
  'a string, a number, true or false',
  isArgumentScalar,
  (u, context) => (isArgumentScalar(u) ? t.success(u) : t.failure(u, context)),
  t.identity,
);
const isArgumentDefault = (u: unknown): u is ArgumentScalar | ArgumentScalar[] =>
  isArgumentScalar(u) || (Array.isArray(u) && u.every(isArgumentScalar));
const ArgumentDefaultCodec = new t.Type<ArgumentScalar | ArgumentScalar[], ArgumentScalar | ArgumentScalar[], unknown>(
  'a string, a number, true or false, or a list of them',
  isArgumentDefault,
  (u, context) => (isArgumentDefault(u) ? t.success(u) : t.failure(u, context)),
  t.identity,
);
/** RAES bounds an argument's lengths and item counts only below; the engine reads them exactly up to 2^53 - 1. */
const ArgumentCount = orNull(authoredInteger(0, MAX_EXACT_INTEGER));

export const ArgumentDefinitionCodec = strictObject(
  'ArgumentDefinition',
  {
    value_type: oneOf(ARGUMENT_VALUE_TYPES),
    normalization: oneOf(ARGUMENT_NORMALIZATIONS),
    normalization_disclosure_ref: NonBlankString,
    omission: oneOf(ARGUMENT_OMISSIONS),
    omission_disclosure_ref: NonBlankString,
    loss_disclosure_ref: NonBlankString,
  },
  {
    cardinality: oneOf(ARGUMENT_CARDINALITIES),
    default: orNull(ArgumentDefaultCodec),
    allowed_values: t.array(ArgumentScalarCodec),
    minimum: orNull(AuthoredNumber),
    maximum: orNull(AuthoredNumber),
    min_length: ArgumentCount,
    max_length: ArgumentCount,
    min_items: ArgumentCount,
    max_items: ArgumentCount,
    unique_items: AuthoredBoolean,
    default_disclosure_ref: OptionalText,
  },
);
export type ArgumentDefinitionDocument = t.TypeOf<typeof ArgumentDefinitionCodec>;

/** An action contract's arguments by name; RAES requires each name to be a portable identifier. */
const ArgumentsCodec = namedMapOf(
  ArgumentDefinitionCodec,
  'action arguments',
  isAddressSegment,
  'a portable identifier: use 1 to 64 lowercase letters, digits, "-" or "_", starting with a letter or digit',
);

export const ActionContractCodec = strictObject(
  'ActionContract',
  {
    semantic_version: NonBlankString,
    behavioral_granularity: oneOf(BEHAVIORAL_GRANULARITIES),
    procedure_basis: NonBlankString,
    realization_profile: NonBlankString,
    fidelity_claim: NonBlankString,
    // RAES requires typed preconditions, typed effects and controlled failure classes of every contract.
    preconditions: distinctList(PreconditionCodec, 'a non-empty list of preconditions with distinct precondition_id values', (p) => p.precondition_id, { nonEmpty: true }),
    effects: distinctList(EffectCodec, 'a non-empty list of effects with distinct effect_id values', (e) => e.effect_id, { nonEmpty: true }),
    failure_classes: distinctList(oneOf(FAILURE_CLASSES), 'a non-empty list of distinct failure classes', (c) => c, { nonEmpty: true }),
  },
  {
    lifecycle_state: oneOf(LIFECYCLE_STATES),
    arguments: ArgumentsCodec,
    state_transition_effects: ContractEntries,
    observation_expectations: ContractEntries,
    evidence_expectations: ContractEntries,
    backend_failure_mappings: distinctList(
      BackendFailureMappingCodec,
      'a list of backend failure mappings with distinct backend_error_code values',
      (m) => m.backend_error_code,
    ),
    interactions: t.array(InteractionCodec),
    external_mappings: t.array(ExternalMappingCodec),
    temporal_contracts: distinctList(TemporalContractCodec, 'a list of temporal contracts with distinct temporal_id values', (c) => c.temporal_id),
    backend_timing_disclosures: distinctList(
      BackendTimingDisclosureCodec,
      'a list of backend timing disclosures with distinct disclosure_id values',
      (d) => d.disclosure_id,
    ),
  },
);

/** A view rule's or transition's evidence refs: RAES refuses a blank entry, not a repeat. */
const ViewEvidenceRefs = nonBlankList('a list of non-blank refs');

export const ViewRuleCodec = strictObject(
  'ViewRule',
  {
    information_ref: NonBlankString,
    boundary_class: oneOf(BOUNDARY_CLASSES),
    disposition: oneOf(VIEW_DISPOSITIONS),
    visibility_basis: NonBlankString,
  },
  {
    evidence_refs: ViewEvidenceRefs,
    disclosure_rule: OptionalText,
    effective_from: OptionalText,
    realized_backend_disclosure: OptionalText,
    certainty: OptionalText,
    latency_profile: OptionalText,
  },
);
export type ViewRuleDocument = t.TypeOf<typeof ViewRuleCodec>;

/**
 * A transition's `effective_order`: a Python int from 0 up, of any size, read as pydantic reads an int
 * (true, 3.0 and " 3 " included); decoded exactly, since RAES compares orders only with each other.
 */
const isEffectiveOrder = (u: unknown): u is bigint => typeof u === 'bigint' && u >= 0n;
const EffectiveOrderCodec = new t.Type<bigint, bigint, unknown>(
  'an integer >= 0',
  isEffectiveOrder,
  (u, context) => {
    const value = authoredIntegerValue(u);
    return value !== undefined && value >= 0n ? t.success(value) : t.failure(u, context);
  },
  t.identity,
);

export const ViewTransitionCodec = strictObject(
  'ViewTransition',
  {
    transition_id: NonBlankString,
    transition_kind: oneOf(VIEW_TRANSITION_KINDS),
    information_ref: NonBlankString,
    trigger: NonBlankString,
    effective_from: NonBlankString,
    effective_order: EffectiveOrderCodec,
    history_event_type: oneOf(VIEW_HISTORY_EVENT_TYPES),
    from_disposition: oneOf(VIEW_DISPOSITIONS),
    to_disposition: oneOf(VIEW_DISPOSITIONS),
    certainty: NonBlankString,
    latency_profile: NonBlankString,
  },
  {
    action_instance_id: OptionalText,
    disclosure_rule: OptionalText,
    evidence_refs: ViewEvidenceRefs,
    realized_backend_disclosure: OptionalText,
  },
);
export type ViewTransitionDocument = t.TypeOf<typeof ViewTransitionCodec>;

export const ObservationBoundaryCodec = strictObject(
  'ObservationBoundary',
  { projection_basis: NonBlankString, redaction_policy: NonBlankString, latency_profile: NonBlankString },
  {
    observable_refs: Names,
    hidden_refs: Names,
    evidence_refs: Names,
    observer_effects: Strings,
    view_rules: t.array(ViewRuleCodec),
    view_transitions: t.array(ViewTransitionCodec),
    realized_view_disclosure: OptionalText,
  },
);

const ExactRatioCodec = strictObject('ExactRatio', { numerator: Ticks, denominator: Ticks }, {});

export const TimeDomainCodec = strictObject(
  'TimeDomain',
  {
    kind: oneOf(TIME_DOMAIN_KINDS),
    tick_period_seconds: ExactRatioCodec,
    epoch: oneOf(TIME_EPOCHS),
    description: t.string,
  },
  { visibility: oneOf(TIME_DOMAIN_VISIBILITIES) },
);

export const ClockCodec = strictObject(
  'Clock',
  {
    time_domain_ref: t.string,
    authority_kind: oneOf(CLOCK_AUTHORITIES),
    authority_ref: t.string,
    monotonicity: oneOf(CLOCK_MONOTONICITIES),
    description: t.string,
  },
  { supports_pause: AuthoredBoolean, supports_reset: AuthoredBoolean, supports_jump: AuthoredBoolean },
);
export type ClockDocument = t.TypeOf<typeof ClockCodec>;

export const TimeDomainMappingCodec = strictObject(
  'TimeDomainMapping',
  { source_domain_ref: t.string, target_domain_ref: t.string, mapping_kind: oneOf(MAPPING_KINDS), description: t.string },
  { scale: ExactRatioCodec, offset_ticks: Tick },
);

export const TimeProgressionPolicyCodec = strictObject(
  'TimeProgressionPolicy',
  {
    clock_ref: t.string,
    advancement_mode: oneOf(ADVANCEMENT_MODES),
    synchronization_mode: oneOf(SYNCHRONIZATION_MODES),
    reset_behavior: oneOf(RESET_BEHAVIORS),
    replay_behavior: oneOf(REPLAY_BEHAVIORS),
    description: t.string,
  },
  { pacing_ratio: ExactRatioCodec, step_ticks: orNull(Ticks), drift_bound_ticks: orNull(TickCount) },
);
export type TimeProgressionPolicyDocument = t.TypeOf<typeof TimeProgressionPolicyCodec>;

const TimeCoordinateCodec = strictObject('TimeCoordinate', { tick: Tick }, { microstep: TickCount });

export const TemporalConstraintCodec = strictObject(
  'TemporalConstraint',
  {
    constraint_kind: oneOf(CONSTRAINT_KINDS),
    clock_ref: t.string,
    subject_refs: uniqueNames('a non-empty list of refs', { nonEmpty: true }),
    description: t.string,
  },
  {
    start: orNull(TimeCoordinateCodec),
    end: orNull(TimeCoordinateCodec),
    duration_ticks: orNull(Ticks),
    cadence_ticks: orNull(Ticks),
  },
);

export const PROFILE_V1 = 'participant-autonomous-execution/v1';
export const PROFILE_V2 = 'participant-autonomous-execution/v2';
export const PROFILE_V3 = 'participant-autonomous-execution/v3';
export const PROFILES = [PROFILE_V1, PROFILE_V2, PROFILE_V3] as const;

export const FailurePolicyCodec = oneOf(['stop', 'continue'] as const);
export const EvaluationAuthorityCodec = strictObject(
  'EvaluationAuthority',
  { mode: oneOf(['none', 'declared'] as const) },
  { objective_refs: Names, proof_producer_refs: Names, score_authority_refs: Names, receipt_authority_refs: Names },
);
export type EvaluationAuthorityDocument = t.TypeOf<typeof EvaluationAuthorityCodec>;

/** RAES's bounds on a policy's attempts and concurrency. */
export const MAX_ACTION_ATTEMPTS = LIMITS.maxActionAttempts;
export const MAX_IN_FLIGHT = LIMITS.maxInFlight;

const UniqueRefs = uniqueNames('a non-empty list of distinct, non-blank refs', { nonEmpty: true });

const policyCommon = {
  participant_implementation_ref: NonEmptyString,
  observation_boundary_ref: NonEmptyString,
  max_action_attempts: authoredInteger(1, MAX_ACTION_ATTEMPTS),
  evaluation_authority: EvaluationAuthorityCodec,
};
const policyCommonOptional = {
  max_in_flight: authoredInteger(1, MAX_IN_FLIGHT),
  failure_policy: FailurePolicyCodec,
};

/**
 * Profile v1: a fixed cadence, ordered_cycle over `action_order`. RAES requires `clock_ref` and
 * `progression_policy_ref`, and fixes `selection_strategy`; they are decoded loosely so that a policy
 * missing one, or naming another strategy, gets the policy diagnostic that says what to set
 * (validate-policies), not a bare shape error.
 */
export const AutonomousExecutionV1Codec = strictObject(
  'AutonomousExecutionV1',
  { ...policyCommon, temporal_constraint_refs: UniqueRefs, action_order: UniqueRefs },
  {
    ...policyCommonOptional,
    profile: t.literal(PROFILE_V1),
    clock_ref: NonEmptyString,
    progression_policy_ref: NonEmptyString,
    selection_strategy: t.string,
  },
);

const ActivityCandidateCodec = strictObject(
  'ActivityActionCandidate',
  { action_ref: NonEmptyString, weight: ActivityTicks },
  {
    depends_on: uniqueNames('a list of distinct candidate names', { max: 1024 }),
    retryable_failure_classes: t.array(oneOf(FAILURE_CLASSES)),
    max_retries: authoredInteger(0, 1024),
    cooldown_ticks: authoredInteger(0, LIMITS.activityTicks),
  },
);

const activityFields = {
  ...policyCommon,
  clock_ref: NonEmptyString,
  progression_policy_ref: NonEmptyString,
  work_window_refs: uniqueNames('a non-empty list of distinct window refs (at most 1024)', { nonEmpty: true, max: 1024 }),
  stochastic_control_ref: NonEmptyString,
  selection_strategy: t.literal('weighted'),
  timing: strictObject('ActivityTiming', { minimum_ticks: ActivityTicks, maximum_ticks: ActivityTicks }, {}),
  outside_window_disposition: oneOf(['next_opening', 'skip'] as const),
  empty_eligible_disposition: oneOf(['complete', 'wait'] as const),
  action_candidates: t.refinement(
    namedMap(ActivityCandidateCodec, 'action candidates by name'),
    (m) => Object.keys(m).length >= 1 && Object.keys(m).length <= 1024,
    'a mapping of 1 to 1024 action candidates',
  ),
  max_occurrences: authoredInteger(1, MAX_ACTION_ATTEMPTS),
};
const activityOptional = {
  ...policyCommonOptional,
  pause_window_refs: uniqueNames('a list of distinct window refs (at most 1024)', { max: 1024 }),
  max_burst_size: authoredInteger(1, MAX_IN_FLIGHT),
};

/** Profile v2: governed within-run activity (windows, weighted candidates). Recognised, not scheduled. */
export const AutonomousExecutionV2Codec = strictObject(
  'AutonomousExecutionV2',
  { ...activityFields, profile: t.literal(PROFILE_V2) },
  activityOptional,
);

const PortableIdentifierCodec = t.refinement(t.string, isAddressSegment, PORTABLE_IDENTIFIER_RULE);

/** A mapping of `min` to `max` entries named by portable identifiers (RAES's dict[PortableIdentifier, ...] with its length bounds). */
const identifiedMap = <C extends t.Mixed>(codec: C, what: string, min: number, max: number) =>
  t.refinement(
    namedMapOf(codec, what, isAddressSegment, PORTABLE_IDENTIFIER_RULE),
    (m) => Object.keys(m).length >= min && Object.keys(m).length <= max,
    `a mapping of ${min} to ${max} ${what}`,
  );

/** RAES's bound on a resource budget's limit and reservation. */
export const MAX_RESOURCE_AMOUNT = 10n ** 18n;
/**
 * A resource budget's limit or reservation: an integer from 1 to 10^18, read as pydantic reads an int,
 * decoded exactly where it was written as a string. A number written beyond 2^53 - 1 is read again
 * exactly from how it was written where the budget is checked (validate-resource-budgets).
 */
const isResourceAmount = (u: unknown): u is bigint => typeof u === 'bigint' && u >= 1n && u <= MAX_RESOURCE_AMOUNT;
const ResourceAmountCodec = new t.Type<bigint, bigint, unknown>(
  `an integer from 1 to ${MAX_RESOURCE_AMOUNT}`,
  isResourceAmount,
  (u, context) => {
    const value = authoredIntegerValue(u);
    return value !== undefined && isResourceAmount(value) ? t.success(value) : t.failure(u, context);
  },
  t.identity,
);

export const ResourceOwnerCodec = strictObject('ResourceOwner', { kind: oneOf(RESOURCE_OWNER_KINDS), ref: NonEmptyString }, {});

export const ResourceFairnessCodec = strictObject(
  'ResourceFairness',
  {
    policy: NonEmptyString,
    priority_class: NonEmptyString,
    weight: authoredInteger(1, 1_000_000),
    protected: AuthoredBoolean,
    borrowing: NonEmptyString,
    reclaim: NonEmptyString,
    max_queue_ticks: authoredInteger(0, LIMITS.activityTicks),
    starvation_bound_ticks: authoredInteger(1, LIMITS.activityTicks),
  },
  {},
);

export const ResourceBudgetDimensionCodec = strictObject(
  'ResourceBudgetDimension',
  {
    owner_ref: PortableIdentifierCodec,
    pool_ref: NonEmptyString,
    resource_kind: oneOf(RESOURCE_KINDS),
    unit: NonEmptyString,
    accounting_mode: oneOf(RESOURCE_ACCOUNTING_MODES),
    meter_profile_ref: NonEmptyString,
    limit: ResourceAmountCodec,
    reservation: ResourceAmountCodec,
    reset: oneOf(RESOURCE_RESET_MODES),
  },
  {
    window_ticks: orNull(authoredInteger(1, LIMITS.activityTicks)),
    parent_budget_ref: orNull(PortableIdentifierCodec),
    evidence_refs: uniqueNames('a list of at most 1024 distinct, non-blank refs', { max: 1024 }),
  },
);
export type ResourceBudgetDimensionDocument = t.TypeOf<typeof ResourceBudgetDimensionCodec>;

export const ResourceBudgetCodec = strictObject(
  'ResourceBudget',
  {
    policy_id: PortableIdentifierCodec,
    owners: identifiedMap(ResourceOwnerCodec, 'resource owners', 1, 1024),
    fairness: ResourceFairnessCodec,
    dimensions: identifiedMap(ResourceBudgetDimensionCodec, 'resource budget dimensions', 1, 4096),
  },
  {},
);
export type ResourceBudgetDocument = t.TypeOf<typeof ResourceBudgetCodec>;

/** Profile v3: v2 plus a multi-resource budget. Recognised, not scheduled. */
export const AutonomousExecutionV3Codec = strictObject(
  'AutonomousExecutionV3',
  { ...activityFields, profile: t.literal(PROFILE_V3), resource_budget: ResourceBudgetCodec },
  activityOptional,
);

type AutonomousExecutionV1 = t.TypeOf<typeof AutonomousExecutionV1Codec>;
type AutonomousExecutionV2 = t.TypeOf<typeof AutonomousExecutionV2Codec>;
type AutonomousExecutionV3 = t.TypeOf<typeof AutonomousExecutionV3Codec>;
export type AutonomousExecutionDocument = AutonomousExecutionV1 | AutonomousExecutionV2 | AutonomousExecutionV3;
export type ActivityPolicyDocument = AutonomousExecutionV2 | AutonomousExecutionV3;

/** A v2 or v3 policy: windows and weighted candidates instead of a cadence and an order. */
export const isActivityPolicy = (policy: AutonomousExecutionDocument): policy is ActivityPolicyDocument =>
  policy.profile === PROFILE_V2 || policy.profile === PROFILE_V3;

/** The policy, decoded by the codec of its `profile` (absent means v1, as in RAES). */
export const AutonomousExecutionCodec = new t.Type<AutonomousExecutionDocument, unknown, unknown>(
  'AutonomousExecution',
  (u): u is AutonomousExecutionDocument =>
    AutonomousExecutionV1Codec.is(u) || AutonomousExecutionV2Codec.is(u) || AutonomousExecutionV3Codec.is(u),
  (u, context) => {
    if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, context);
    const profile = (u as { profile?: unknown }).profile;
    if (profile === undefined || profile === PROFILE_V1) return AutonomousExecutionV1Codec.validate(u, context);
    if (profile === PROFILE_V2) return AutonomousExecutionV2Codec.validate(u, context);
    if (profile === PROFILE_V3) return AutonomousExecutionV3Codec.validate(u, context);
    return t.failure(profile, [...context, { key: 'profile', type: oneOf(PROFILES), actual: profile }]);
  },
  t.identity,
);

export const ToolAffordanceCodec = strictObject(
  'ToolAffordance',
  {
    action_contract_refs: uniqueNames('a non-empty list of distinct action contract names', { nonEmpty: true }),
    observation_boundary_refs: uniqueNames('a non-empty list of distinct observation boundary names', { nonEmpty: true }),
  },
  {
    tool_ref: orNull(NonEmptyString),
    // The composition's scope of an affordance (docs/rules.md, authoring); not a field of RAES 3.3.
    participant_refs: uniqueNames('a non-empty list of distinct agent names', { nonEmpty: true }),
  },
);

/**
 * A field RAES types StrictInt with a lower bound: a whole number from `min` up, of any size, decoded as
 * a bigint. pydantic's strict int takes no true/false, no string and no float, so a number written 3.0
 * or 1e3 (a float to RAES's YAML) is refused where the specification is checked, from how it was
 * written (validate-specifications), which also reads a number beyond 2^53 - 1 exactly.
 */
const strictInteger = (min: bigint) =>
  new t.Type<bigint, bigint, unknown>(
    `an integer >= ${min}`,
    (u): u is bigint => typeof u === 'bigint' && u >= min,
    (u, context) => (typeof u === 'number' && Number.isInteger(u) && BigInt(u) >= min ? t.success(BigInt(u)) : t.failure(u, context)),
    t.identity,
  );
const StrictOrder = strictInteger(0n);
const StrictRevision = strictInteger(1n);

/** A list RAES requires to be non-empty, with distinct, non-blank entries. */
const RequiredRefs = uniqueNames('a non-empty list of distinct, non-blank refs', { nonEmpty: true });
/** A list RAES requires to have distinct, non-blank entries. */
const DistinctRefs = uniqueNames('a list of distinct, non-blank refs');

export const MixedControlDispositionsCodec = strictObject(
  'MixedControlDispositions',
  {
    duplicate: oneOf(['idempotent-if-equivalent'] as const),
    stale: oneOf(['reject-no-state-change'] as const),
    revoked: oneOf(['reject-no-state-change'] as const),
    late: oneOf(['reject-no-state-change'] as const),
    concurrent: oneOf(['order-then-revalidate'] as const),
    conflict: oneOf(['reject-no-state-change'] as const),
  },
  {},
);

export const MixedControlControllerStateCodec = strictObject(
  'MixedControlControllerState',
  {
    controller_ref: NonBlankString,
    authority_basis_refs: RequiredRefs,
    scope_refs: RequiredRefs,
    policy_revision: NonBlankString,
    valid_from_order: StrictOrder,
    valid_until_order: StrictOrder,
    authority_status: oneOf(MIXED_CONTROL_AUTHORITY_STATUSES),
    evidence_refs: RequiredRefs,
  },
  {},
);
export type MixedControlControllerStateDocument = t.TypeOf<typeof MixedControlControllerStateCodec>;

export const MixedControlTransitionCodec = strictObject(
  'MixedControlTransition',
  {
    transition_kind: oneOf(MIXED_CONTROL_TRANSITION_KINDS),
    from_state_ref: PortableIdentifierCodec,
    to_state_ref: PortableIdentifierCodec,
    policy_revision: NonBlankString,
    expected_state_revision: StrictOrder,
    resulting_state_revision: StrictRevision,
    effective_order: StrictOrder,
    valid_from_order: StrictOrder,
    valid_until_order: StrictOrder,
    evidence_refs: DistinctRefs,
  },
  {
    proposal_ref: orNull(PortableIdentifierCodec),
    proposal_revision: orNull(StrictRevision),
    completion_evidence_refs: DistinctRefs,
  },
);
export type MixedControlTransitionDocument = t.TypeOf<typeof MixedControlTransitionCodec>;

export const MixedControlCodec = strictObject(
  'MixedControl',
  {
    participant_ref: NonBlankString,
    policy_revision: NonBlankString,
    order_strategy: oneOf(MIXED_CONTROL_ORDER_STRATEGIES),
    initial_state_ref: PortableIdentifierCodec,
    dispositions: MixedControlDispositionsCodec,
    controller_states: namedMapOf(MixedControlControllerStateCodec, 'controller states', isAddressSegment, PORTABLE_IDENTIFIER_RULE),
    transitions: namedMapOf(MixedControlTransitionCodec, 'mixed-control transitions', isAddressSegment, PORTABLE_IDENTIFIER_RULE),
  },
  {},
);
export type MixedControlDocument = t.TypeOf<typeof MixedControlCodec>;

export const InjectOccurrenceCodec = strictObject(
  'InjectOccurrence',
  { event_ref: NonEmptyString, script_ref: NonEmptyString, story_ref: NonEmptyString },
  {},
);

export const InjectDeliveryPolicyCodec = strictObject(
  'InjectDeliveryPolicy',
  {
    policy_ref: NonBlankString,
    policy_revision: NonBlankString,
    exposure_policy_ref: NonBlankString,
    audience_scope_ref: NonBlankString,
    visibility_basis_ref: NonBlankString,
    disclosure_basis_ref: NonBlankString,
  },
  {},
);

export const InjectDeliveryCodec = strictObject(
  'InjectDelivery',
  {
    participant_ref: NonBlankString,
    inject_ref: NonBlankString,
    occurrence: InjectOccurrenceCodec,
    source_item_ref: NonBlankString,
    result_item_ref: NonBlankString,
    observation_boundary_ref: NonBlankString,
    delivery_kind: oneOf(INJECT_DELIVERY_KINDS),
    delivery_policy: InjectDeliveryPolicyCodec,
    order_basis: oneOf(['orchestration-occurrence-and-shared-time'] as const),
    temporal_constraint_refs: RequiredRefs,
    evidence_requirement_refs: RequiredRefs,
    failure_disposition: oneOf(['reject-no-delivery'] as const),
  },
  {
    control_transition_ref: orNull(PortableIdentifierCodec),
    controller_ref: orNull(NonEmptyString),
    control_authority_scope_refs: DistinctRefs,
    control_effective_order: orNull(StrictOrder),
    control_valid_from_order: orNull(StrictOrder),
    control_valid_until_order: orNull(StrictOrder),
    control_evidence_refs: DistinctRefs,
  },
);
export type InjectDeliveryDocument = t.TypeOf<typeof InjectDeliveryCodec>;


/**
 * A value of free shape whose mapping keys RAES reads as fields (an extension's value): every key is
 * written as RAES spells a field (lowercase, `_` not `-`), except the keys of a field that holds names
 * (`holdsNames`), whose own values are read as fields again. RAES's YAML preflight refuses any other
 * spelling (sdl.noncanonical_field).
 */
const FieldKeyedValueCodec = new t.Type<unknown, unknown, unknown>(
  'a value whose keys are lowercase, with "_" rather than "-"',
  (u): u is unknown => true,
  (u, context) => {
    const errors: t.Errors = [];
    // Depth first, in document order: each entry's key is checked when the entry is taken.
    type Entry = { readonly value: unknown; readonly names: boolean; readonly at: t.Context; readonly fieldKey?: string };
    const pending: Entry[] = [{ value: u, names: false, at: context }];
    while (pending.length > 0) {
      const { value, names, at, fieldKey } = pending.pop() as Entry;
      if (fieldKey !== undefined && canonicalFieldKey(fieldKey) !== fieldKey) {
        const canonical = canonicalFieldKey(fieldKey);
        errors.push({ value: fieldKey, context: at, message: `the key "${fieldKey}" is not spelled as RAES spells a field: write "${canonical}" (lowercase, "_" for "-").` });
      }
      const children: Entry[] = [];
      if (Array.isArray(value)) {
        value.forEach((item, i) => children.push({ value: item, names, at: [...at, { key: String(i), type: t.unknown, actual: item }] }));
      } else if (typeof value === 'object' && value !== null) {
        for (const [key, item] of Object.entries(value)) {
          const here = [...at, { key, type: t.unknown, actual: item }];
          children.push({ value: item, names: !names && holdsNames(canonicalFieldKey(key), item), at: here, ...(names ? {} : { fieldKey: key }) });
        }
      }
      pending.push(...children.reverse());
    }
    return errors.length > 0 ? t.failures(errors) : t.success(u);
  },
  t.identity,
);

/**
 * A behavior specification's extensions (BehaviorSpecificationExtensionValue by key): every YAML value
 * RAES SDL admits is a string, number, true/false, null, list or mapping of them, so the keys are what
 * is checked: each extension's own key, and the field keys inside its value. Whether the specification
 * allows extensions at all is checked with it (checkSpecifications).
 */
const ExtensionsCodec = namedMapOf(
  FieldKeyedValueCodec,
  'extensions by key',
  (key) => EXTENSION_KEY.test(key),
  'a governed extension key x-<owner>:<term>: lowercase letters and digits, in words joined by "-", as in x-acme:probe-depth',
);

export const BehaviorSpecificationCodec = strictObject(
  'BehaviorSpecification',
  { semantic_version: NonBlankString },
  {
    lifecycle_state: oneOf(LIFECYCLE_STATES),
    participant_refs: SpecificationRefs,
    participant_role_refs: SpecificationRefs,
    action_contract_refs: SpecificationRefs,
    observation_boundary_refs: SpecificationRefs,
    outcome_interpretation_rule_refs: SpecificationRefs,
    authority_scope_refs: SpecificationRefs,
    behavior_mode: orNull(NonBlankString),
    autonomous_execution: orNull(AutonomousExecutionCodec),
    ai_offensive_behavior_refs: SpecificationRefs,
    defensive_behavior_refs: SpecificationRefs,
    offensive_behavior_refs: SpecificationRefs,
    realization_profile_ref: orNull(NonBlankString),
    backend_feature_support_refs: SpecificationRefs,
    evidence_contract_refs: SpecificationRefs,
    tool_affordances: namedMap(ToolAffordanceCodec, 'tool affordances by name'),
    extension_policy: oneOf(['closed', 'governed-extension'] as const),
    extensions: ExtensionsCodec,
    mixed_control: orNull(MixedControlCodec),
    participant_inject_deliveries: namedMapOf(InjectDeliveryCodec, 'participant inject deliveries', isAddressSegment, PORTABLE_IDENTIFIER_RULE),
  },
);

const section = <C extends t.Mixed>(codec: C, what: string) => namedMap(codec, `${what} by name`);
const otherSection = (what: string) => namedMap(t.unknown, `${what} by name`);

/** Every section of RAES 3.3 SDL the engine does not read, with the shape RAES gives its container. */
const OTHER_SECTIONS = {
  version: t.string,
  description: t.string,
  infrastructure: otherSection('infrastructure entries'),
  features: otherSection('features'),
  conditions: otherSection('conditions'),
  propositions: otherSection('propositions'),
  assertions: otherSection('assertions'),
  vulnerabilities: otherSection('vulnerabilities'),
  injects: otherSection('injects'),
  events: otherSection('events'),
  scripts: otherSection('scripts'),
  stories: otherSection('stories'),
  generated_artifacts: otherSection('generated artifacts'),
  persistent_volumes: otherSection('persistent volumes'),
  accounts: otherSection('accounts'),
  identity_domains: otherSection('identity domains'),
  identity_forests: otherSection('identity forests'),
  identity_facades: otherSection('identity facades'),
  deployment_tenants: otherSection('deployment tenants'),
  deployment_cells: otherSection('deployment cells'),
  relationships: otherSection('relationships'),
  forwarding_agents: UnknownList,
  outcome_interpretation_rules: otherSection('outcome interpretation rules'),
  evidence_requirements: otherSection('evidence requirements'),
  objectives: otherSection('objectives'),
  workflows: otherSection('workflows'),
  module: t.unknown,
  imports: UnknownList,
  realization: t.unknown,
  variables: otherSection('variables'),
  variation_points: otherSection('variation points'),
};

export const ScenarioDocumentCodec = strictObject(
  'Scenario',
  { name: t.string },
  {
    nodes: section(NodeCodec, 'nodes'),
    entities: section(EntityCodec, 'entities'),
    content: section(ContentCodec, 'content'),
    agents: section(AgentCodec, 'agents'),
    action_contracts: section(ActionContractCodec, 'action contracts'),
    observation_boundaries: section(ObservationBoundaryCodec, 'observation boundaries'),
    behavior_specifications: section(BehaviorSpecificationCodec, 'behavior specifications'),
    time_domains: section(TimeDomainCodec, 'time domains'),
    clocks: section(ClockCodec, 'clocks'),
    time_domain_mappings: section(TimeDomainMappingCodec, 'time domain mappings'),
    time_progression_policies: section(TimeProgressionPolicyCodec, 'time progression policies'),
    temporal_constraints: section(TemporalConstraintCodec, 'temporal constraints'),
    ...OTHER_SECTIONS,
  },
);

export type ScenarioDocument = t.TypeOf<typeof ScenarioDocumentCodec>;
export type AgentDocument = t.TypeOf<typeof AgentCodec>;
export type ActionContractDocument = t.TypeOf<typeof ActionContractCodec>;
export type ObservationBoundaryDocument = t.TypeOf<typeof ObservationBoundaryCodec>;
export type TemporalConstraintDocument = t.TypeOf<typeof TemporalConstraintCodec>;
export type BehaviorSpecificationDocument = t.TypeOf<typeof BehaviorSpecificationCodec>;
export type ToolAffordanceDocument = t.TypeOf<typeof ToolAffordanceCodec>;
