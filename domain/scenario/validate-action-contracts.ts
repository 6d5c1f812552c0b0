import { pythonStrip } from './decoding';
import { Diagnostic, error } from './diagnostics';
import { ActionContractDocument, ArgumentDefinitionDocument, ArgumentScalar, ScenarioDocument, TemporalContractDocument } from './document';

/**
 * The rules RAES 3.3's action-contract models check beyond each field's shape (raes/participant_behavior.py,
 * participant_action_semantics.py, participant_temporal_semantics.py): what an effect, an interaction, a
 * temporal contract, a timing disclosure and an argument need by their class, and how a contract's
 * failure mappings, temporal contracts and timing disclosures fit together.
 */

type Report = (address: string, message: string) => void;

/** Only these effect classes may name neither a target nor evidence (ParticipantActionEffect). */
const EFFECTS_WITHOUT_REFS = new Set(['no_effect', 'unknown_effect']);

const checkEffects = (contract: ActionContractDocument, at: string, report: Report): void => {
  contract.effects.forEach((effect, i) => {
    if (EFFECTS_WITHOUT_REFS.has(effect.effect_class)) return;
    if ((effect.target_refs ?? []).length > 0 || (effect.evidence_refs ?? []).length > 0) return;
    report(
      `${at}.effects.${i}`,
      `effect "${effect.effect_id}" (${effect.effect_class}) names no target_refs or evidence_refs: list what it acts on in ${at}.effects.${i}.target_refs or the evidence it leaves in its evidence_refs (only no_effect and unknown_effect effects may name neither).`,
    );
  });
};

/** What each interaction class needs (ParticipantInteractionDeclaration). */
const INTERACTION_NEEDS: Readonly<Record<string, readonly ['related_actions' | 'shared_state_refs', string]>> = {
  coordination: ['related_actions', 'the action contracts it coordinates with'],
  interference: ['related_actions', 'the action contracts it interferes with'],
  contention: ['shared_state_refs', 'the shared state it contends for'],
  shared_state_change: ['shared_state_refs', 'the shared state it changes'],
};

const checkInteractions = (contract: ActionContractDocument, at: string, report: Report): void => {
  (contract.interactions ?? []).forEach((interaction, i) => {
    const need = INTERACTION_NEEDS[interaction.interaction_class];
    if (need === undefined) return;
    const [field, what] = need;
    if ((interaction[field] ?? []).length > 0) return;
    report(
      `${at}.interactions.${i}`,
      `a ${interaction.interaction_class} interaction needs ${field}: list ${what} in ${at}.interactions.${i}.${field}.`,
    );
  });
};

const checkFailureMappings = (name: string, contract: ActionContractDocument, at: string, report: Report): void => {
  const declared = new Set<string>(contract.failure_classes);
  (contract.backend_failure_mappings ?? []).forEach((mapping, i) => {
    if (declared.has(mapping.failure_class)) return;
    report(
      `${at}.backend_failure_mappings.${i}.failure_class`,
      `backend failure mapping "${mapping.backend_error_code}" maps to failure class ${mapping.failure_class}, which action contract "${name}" does not declare (declared: ${contract.failure_classes.join(', ')}): add it to ${at}.failure_classes or map to a declared class.`,
    );
  });
};

type TemporalKind = TemporalContractDocument['temporal_kind'];
type EventPoint = TemporalContractDocument['event_points'][number];

/** The fields each temporal contract kind requires (ParticipantTemporalContract), besides backend_disclosure_refs. */
const TEMPORAL_FIELDS: ReadonlyArray<readonly [keyof TemporalContractDocument, ReadonlyArray<TemporalKind>]> = [
  ['window_ref', ['schedule', 'time_window', 'dwell']],
  ['duration_ref', ['cadence', 'deadline', 'dwell', 'latency', 'timeout', 'cooldown']],
  ['reset_boundary', ['cadence', 'deadline', 'dwell', 'latency', 'timeout', 'cooldown', 'time_window']],
  ['replay_boundary', ['cadence', 'deadline', 'dwell', 'latency', 'timeout', 'cooldown', 'time_window']],
  ['randomization_basis', ['cadence', 'time_window']],
];

/** The event points each kind requires (ParticipantTemporalContract): what is missing, or undefined. */
const eventPointProblem = (kind: TemporalKind, points: ReadonlyArray<EventPoint>): string | undefined => {
  const has = (...wanted: EventPoint[]): boolean => wanted.some((p) => points.includes(p));
  switch (kind) {
    case 'schedule':
      return has('submit', 'start') ? undefined : 'submit or start';
    case 'time_window':
      return points.includes('window_open') && points.includes('window_close') ? undefined : 'both window_open and window_close';
    case 'deadline':
      if (points.length < 2) return 'at least two points';
      if (!has('deadline')) return 'deadline';
      return has('end', 'observed', 'effective') ? undefined : 'end, observed or effective';
    case 'dwell':
      if (points.length < 2) return 'at least two points';
      return has('start', 'window_open') && has('end', 'window_close') ? undefined : 'start or window_open, and end or window_close';
    case 'cadence':
      return has('submit', 'start', 'observed', 'effective') ? undefined : 'submit, start, observed or effective';
    case 'latency':
      return points.length < 2 ? 'at least two points' : undefined;
    default:
      return undefined;
  }
};

const checkTemporalContracts = (name: string, contract: ActionContractDocument, at: string, report: Report): void => {
  const temporal = contract.temporal_contracts ?? [];
  const disclosures = contract.backend_timing_disclosures ?? [];
  const disclosureIds = new Set(disclosures.map((d) => d.disclosure_id));
  temporal.forEach((tc, i) => {
    const here = `${at}.temporal_contracts.${i}`;
    const missing = TEMPORAL_FIELDS.filter(([field, kinds]) => kinds.includes(tc.temporal_kind) && (tc[field] ?? null) === null).map(([field]) => field);
    if ((tc.backend_disclosure_refs ?? []).length === 0) missing.push('backend_disclosure_refs');
    if (missing.length > 0) {
      report(here, `${tc.temporal_kind} temporal contract "${tc.temporal_id}" needs ${missing.join(', ')}: set ${missing.length === 1 ? 'it' : 'them'} in ${here}.`);
    }
    const points = eventPointProblem(tc.temporal_kind, tc.event_points);
    if (points !== undefined) {
      report(`${here}.event_points`, `${tc.temporal_kind} temporal contract "${tc.temporal_id}" needs ${points} among its event_points: add what is missing to ${here}.event_points.`);
    }
    const unknown = [...new Set(tc.backend_disclosure_refs ?? [])].filter((ref) => !disclosureIds.has(ref));
    if (unknown.length > 0) {
      report(
        `${here}.backend_disclosure_refs`,
        `temporal contract "${tc.temporal_id}" names backend timing disclosures ${unknown.join(', ')}, which action contract "${name}" does not declare: declare them in ${at}.backend_timing_disclosures or fix the refs.`,
      );
    }
  });

  const temporalIds = new Set(temporal.map((tc) => tc.temporal_id));
  if (disclosures.length > 0 && temporal.length === 0) {
    report(
      `${at}.backend_timing_disclosures`,
      `action contract "${name}" declares backend_timing_disclosures but no temporal_contracts: declare the temporal contracts they disclose in ${at}.temporal_contracts, or remove the disclosures.`,
    );
  }
  disclosures.forEach((disclosure, i) => {
    const here = `${at}.backend_timing_disclosures.${i}`;
    if (disclosure.support_mode !== 'exact' && (disclosure.limitations ?? []).length === 0) {
      report(
        here,
        `timing disclosure "${disclosure.disclosure_id}" has support_mode ${disclosure.support_mode} but no limitations: list what the backend does not guarantee in ${here}.limitations, or use support_mode exact.`,
      );
    }
    const unknown = temporal.length === 0 ? [] : [...new Set(disclosure.affected_temporal_ids)].filter((id) => !temporalIds.has(id));
    if (unknown.length > 0) {
      report(
        `${here}.affected_temporal_ids`,
        `timing disclosure "${disclosure.disclosure_id}" names temporal contracts ${unknown.join(', ')}, which action contract "${name}" does not declare: declare them in ${at}.temporal_contracts or fix the ids.`,
      );
    }
  });

  const timed = contract.preconditions.filter((p) => p.precondition_class === 'temporal').map((p) => `"${p.precondition_id}"`);
  if (timed.length > 0 && temporal.length === 0) {
    report(
      `${at}.preconditions`,
      `action contract "${name}" has temporal preconditions (${timed.join(', ')}) but no temporal_contracts: declare the temporal contracts they rest on in ${at}.temporal_contracts, or give them another precondition_class.`,
    );
  }
};

/** An authored argument value with the type Python gives it: RAES compares values and checks types by it. */
interface TypedValue {
  readonly value: ArgumentScalar;
  readonly type: 'str' | 'int' | 'float' | 'bool';
  /** The value as the author wrote it, for messages. */
  readonly written: string;
  /** Equal exactly when RAES calls two values equal: same type, same value (integers exactly, however long). */
  readonly key: string;
}

/** YAML 1.2 core integer spellings; a number written any other way (3.0, 1e3) is a float to RAES. */
const INTEGER_SOURCE = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;

const typed = (value: ArgumentScalar, path: string, authoredNumbers: ReadonlyMap<string, string>): TypedValue => {
  if (typeof value === 'string') return { value, type: 'str', written: JSON.stringify(value), key: `str:${value}` };
  if (typeof value === 'boolean') return { value, type: 'bool', written: String(value), key: `bool:${String(value)}` };
  const source = authoredNumbers.get(path);
  const written = source ?? String(value);
  if (!Number.isInteger(value) || (source !== undefined && !INTEGER_SOURCE.test(source))) {
    return { value, type: 'float', written, key: `float:${String(value)}` };
  }
  // A whole number beyond 2^53 - 1 is rounded as a JavaScript number; its written digits are exact.
  const exact = source === undefined ? BigInt(value) : BigInt(source.replace(/^\+/, ''));
  return { value, type: 'int', written, key: `int:${exact.toString()}` };
};

const TYPE_NAMES: Readonly<Record<TypedValue['type'], string>> = { str: 'a string', int: 'an integer', float: 'a float', bool: 'a boolean' };
const WRITE_AS: Readonly<Record<ArgumentDefinitionDocument['value_type'], string>> = {
  string: 'a string',
  reference: 'a string',
  integer: 'an integer (without a point or exponent)',
  number: 'a number',
  boolean: 'true or false',
};

const VALUE_TYPES: Readonly<Record<ArgumentDefinitionDocument['value_type'], ReadonlyArray<TypedValue['type']>>> = {
  string: ['str'],
  reference: ['str'],
  integer: ['int'],
  number: ['int', 'float'],
  boolean: ['bool'],
};

const same = (a: TypedValue, b: TypedValue): boolean => a.key === b.key;
const hasSame = (values: ReadonlyArray<TypedValue>, value: TypedValue): boolean => values.some((v) => same(v, value));

/**
 * The first problem RAES finds in an argument's domain, in the order it checks them
 * (ParticipantActionArgumentDefinition._validate_argument_domain), as a message with its fix.
 */
const argumentProblem = (
  argument: ArgumentDefinitionDocument,
  at: string,
  authoredNumbers: ReadonlyMap<string, string>,
): string | undefined => {
  const many = argument.cardinality === 'many';
  const trim = argument.normalization === 'trim';
  const literal = (v: TypedValue): TypedValue => {
    if (!trim || typeof v.value !== 'string') return v;
    // A trim-normalized argument strips its literals first, as Python's str.strip() does.
    const value = pythonStrip(v.value);
    return { value, type: 'str', written: JSON.stringify(value), key: `str:${value}` };
  };
  const allowed = (argument.allowed_values ?? []).map((v, i) => literal(typed(v, `${at}.allowed_values.${i}`, authoredNumbers)));
  const authoredDefault = argument.default ?? null;
  const defaults =
    authoredDefault === null
      ? undefined
      : Array.isArray(authoredDefault)
        ? authoredDefault.map((v, i) => literal(typed(v, `${at}.default.${i}`, authoredNumbers)))
        : literal(typed(authoredDefault, `${at}.default`, authoredNumbers));
  const present = (v: number | null | undefined): v is number => v !== undefined && v !== null;
  const { value_type: valueType, minimum, maximum, min_length: minLength, max_length: maxLength, min_items: minItems, max_items: maxItems } = argument;

  const scalarProblem = (v: TypedValue, field: string): string | undefined => {
    if (!VALUE_TYPES[valueType].includes(v.type)) {
      return `${field} must match value_type ${valueType}, but ${v.written} is ${TYPE_NAMES[v.type]}: write ${WRITE_AS[valueType]}, or change value_type`;
    }
    if (typeof v.value === 'string') {
      const length = [...v.value].length;
      if (present(minLength) && length < minLength) return `${field} must satisfy min_length (${minLength}): ${v.written} is shorter; lengthen it or lower min_length`;
      if (present(maxLength) && length > maxLength) return `${field} must satisfy max_length (${maxLength}): ${v.written} is longer; shorten it or raise max_length`;
    }
    if (typeof v.value === 'number') {
      if (present(minimum) && v.value < minimum) return `${field} must satisfy minimum (${minimum}): ${v.written} is below it; change it or lower minimum`;
      if (present(maximum) && v.value > maximum) return `${field} must satisfy maximum (${maximum}): ${v.written} is above it; change it or raise maximum`;
    }
    return undefined;
  };

  // Cardinality, and a many-valued default as a collection.
  if (!many) {
    if (present(minItems) || present(maxItems)) return 'min_items and max_items require cardinality many: set cardinality to many or remove them';
    if (Array.isArray(defaults)) return 'a single-valued argument takes a single default, not a list: write one value, or set cardinality to many';
  } else {
    if (present(minItems) && present(maxItems) && minItems > maxItems) return `min_items (${minItems}) exceeds max_items (${maxItems}): lower min_items or raise max_items`;
    if (defaults !== undefined && !Array.isArray(defaults)) return 'a many-valued argument takes a list as its default: write the default as a list';
    if (Array.isArray(defaults)) {
      if (present(minItems) && defaults.length < minItems) return `the default must satisfy min_items (${minItems}): list more values or lower min_items`;
      if (present(maxItems) && defaults.length > maxItems) return `the default must satisfy max_items (${maxItems}): list fewer values or raise max_items`;
      if (argument.unique_items !== false && defaults.some((v, i) => hasSame(defaults.slice(0, i), v))) {
        return 'the default entries must be unique: remove the repeated value, or set unique_items to false';
      }
      for (const v of defaults) {
        const problem = scalarProblem(v, 'the default');
        if (problem !== undefined) return problem;
      }
    }
  }
  // Constraints only some value types take.
  const numeric = valueType === 'integer' || valueType === 'number';
  if (!numeric && (present(minimum) || present(maximum))) return 'minimum and maximum require an integer or number argument: remove them or change value_type';
  if (present(minimum) && present(maximum) && minimum > maximum) return `minimum (${minimum}) exceeds maximum (${maximum}): lower minimum or raise maximum`;
  const textual = valueType === 'string' || valueType === 'reference';
  if (!textual && (present(minLength) || present(maxLength))) return 'min_length and max_length require a string or reference argument: remove them or change value_type';
  if (present(minLength) && present(maxLength) && minLength > maxLength) return `min_length (${minLength}) exceeds max_length (${maxLength}): lower min_length or raise max_length`;
  if (valueType === 'reference' && trim) return 'a reference argument is not normalized: set normalization to identity';
  // Allowed values, then the default against them.
  for (const [i, v] of allowed.entries()) {
    const problem = scalarProblem(v, 'allowed_values');
    if (problem !== undefined) return problem;
    if (hasSame(allowed.slice(0, i), v)) return `allowed_values lists ${v.written} twice${trim ? ' once trimmed' : ''}: list each value once`;
  }
  for (const v of defaults === undefined ? [] : Array.isArray(defaults) ? defaults : [defaults]) {
    const problem = scalarProblem(v, 'the default');
    if (problem !== undefined) return problem;
    if (allowed.length > 0 && !hasSame(allowed, v)) return `the default ${v.written} is not one of allowed_values: use an allowed value or allow it`;
  }
  // Omission.
  const disclosure = argument.default_disclosure_ref ?? null;
  if (argument.omission === 'use_default') {
    if (defaults === undefined || disclosure === null) return 'omission use_default needs a default and a default_disclosure_ref: set both';
  } else if (defaults !== undefined || disclosure !== null) {
    return `a default and default_disclosure_ref apply only with omission use_default (this argument's omission is ${argument.omission}): set omission to use_default or remove them`;
  }
  return undefined;
};

const checkArguments = (contract: ActionContractDocument, at: string, authoredNumbers: ReadonlyMap<string, string>, report: Report): void => {
  for (const [argumentName, argument] of Object.entries(contract.arguments ?? {})) {
    const here = `${at}.arguments.${argumentName}`;
    const problem = argumentProblem(argument, here, authoredNumbers);
    if (problem !== undefined) report(here, `argument "${argumentName}": ${problem}.`);
  }
};

/**
 * Every action contract's rules beyond its fields' shapes. `authoredNumbers` (by path, how a number was
 * written where its value reads differently) tells an argument value written 3.0 (a float to RAES) from 3.
 */
export const checkActionContracts = (scenario: ScenarioDocument, authoredNumbers: ReadonlyMap<string, string> = new Map()): Diagnostic[] => {
  const diagnostics: Diagnostic[] = [];
  const report: Report = (address, message) => diagnostics.push(error('scenario.action-contract-invalid', address, message));
  for (const [name, contract] of Object.entries(scenario.action_contracts ?? {})) {
    const at = `action_contracts.${name}`;
    checkArguments(contract, at, authoredNumbers, report);
    checkEffects(contract, at, report);
    checkFailureMappings(name, contract, at, report);
    checkInteractions(contract, at, report);
    checkTemporalContracts(name, contract, at, report);
  }
  return diagnostics;
};
