import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { MAX_EXACT_INTEGER } from './authored-values';
import { Diagnostic, DiagnosticCode, error } from './diagnostics';

/**
 * io-ts helpers for authored documents: objects whose unknown keys are errors, and a reporter that
 * turns every decoding failure into a diagnostic with a path and a sentence a person can act on.
 */

const UNKNOWN_KEY_MARK = 'unknown key';

/** Object codecs built by strictObject, so failures on them read "a mapping (Name)". */
const objectCodecs = new WeakSet<t.Decoder<unknown, unknown>>();

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * An object with required and optional fields. Keys in neither set are reported, each with the list of
 * keys that are allowed there. `loose` names fields of the wider RAES SDL that are accepted but not read.
 */
export const strictObject = <R extends t.Props, O extends t.Props>(
  name: string,
  required: R,
  optional: O,
  loose: ReadonlyArray<string> = [],
): t.Type<t.TypeOf<t.TypeC<R>> & t.TypeOf<t.PartialC<O>>, unknown, unknown> => {
  const base = t.intersection([t.type(required), t.partial(optional)]);
  const known = new Set<string>([...Object.keys(required), ...Object.keys(optional), ...loose]);
  const allowed = [...known].sort().join(', ');
  const codec = new t.Type<t.TypeOf<t.TypeC<R>> & t.TypeOf<t.PartialC<O>>, unknown, unknown>(
    name,
    (u): u is t.TypeOf<t.TypeC<R>> & t.TypeOf<t.PartialC<O>> => base.is(u),
    (u, context) => {
      if (!isPlainObject(u)) return t.failure(u, context);
      const unknownKeyErrors: t.Errors = Object.keys(u)
        .filter((key) => !known.has(key))
        .map((key) => ({
          value: u[key],
          context: [...context, { key, type: t.never, actual: u[key] }],
          message: `${UNKNOWN_KEY_MARK} "${key}"; allowed keys here: ${allowed}`,
        }));
      // The intersection enters the context so the reporter can drop its member indices from paths.
      const decoded = base.validate(u, [...context, { key: '', type: base, actual: u }]);
      if (isLeft(decoded)) return t.failures([...unknownKeyErrors, ...decoded.left]);
      return unknownKeyErrors.length > 0 ? t.failures(unknownKeyErrors) : decoded;
    },
    t.identity,
  );
  objectCodecs.add(codec);
  return codec;
};

/** A map of named entries (a YAML mapping); keys are checked as names elsewhere. */
export const namedMap = <C extends t.Mixed>(codec: C, what: string) => t.record(t.string, codec, `a mapping of ${what}`);

/**
 * A map of named entries whose names RAES itself constrains (`isName`): a name it refuses is reported at
 * its path, saying it is not `rule`.
 */
export const namedMapOf = <C extends t.Mixed>(codec: C, what: string, isName: (name: string) => boolean, rule: string) => {
  const base = namedMap(codec, what);
  return new t.Type<t.TypeOf<typeof base>, unknown, unknown>(
    base.name,
    base.is,
    (u, context) => {
      const decoded = base.validate(u, context);
      if (!isPlainObject(u)) return decoded;
      const badNames: t.Errors = Object.keys(u)
        .filter((name) => !isName(name))
        .map((name) => {
          const at = [...context, { key: name, type: t.string, actual: name }];
          return { value: name, context: at, message: `the name "${name}" at ${pathOf(at)} is not ${rule}.` };
        });
      if (badNames.length === 0) return decoded;
      return t.failures(isLeft(decoded) ? [...badNames, ...decoded.left] : badNames);
    },
    t.identity,
  );
};

export const nonEmptyArray = <C extends t.Mixed>(codec: C, name: string) =>
  t.refinement(t.array(codec), (xs) => xs.length > 0, name);

export interface PositiveIntBrand {
  readonly PositiveInt: unique symbol;
}
export const PositiveInt = t.brand(
  t.number,
  (n): n is t.Branded<number, PositiveIntBrand> => Number.isInteger(n) && n >= 1,
  'PositiveInt',
);
export interface NonNegativeIntBrand {
  readonly NonNegativeInt: unique symbol;
}
export const NonNegativeInt = t.brand(
  t.number,
  (n): n is t.Branded<number, NonNegativeIntBrand> => Number.isInteger(n) && n >= 0,
  'NonNegativeInt',
);
/** A whole number within bounds; its name is the message a person reads ("an integer from 1 to 1024"). */
export const integerFrom = (min: number, max: number) =>
  t.refinement(t.number, (n) => Number.isInteger(n) && n >= min && n <= max, `an integer from ${min} to ${max}`);

/** Upper bounds of counts and limits (docs/decisions.md, "Upper bounds of limits and counts"). */
export const LIMITS = {
  maxActionAttempts: 1_000_000,
  maxInFlight: 1024,
  /** RAES's bound on activity timing, candidate weights and cooldowns (v2 and v3 policies). */
  activityTicks: 1_000_000_000,
  /** The time model's tick counts and coordinates: RAES states no bound; the engine counts exactly up to here. */
  ticks: MAX_EXACT_INTEGER,
  timeoutSeconds: 86_400,
  maxRetries: 1024,
  maxToolActionsPerInvocation: 10_000,
  maxConcurrentToolActionsPerInvocation: 1024,
} as const;

export const NonEmptyString = t.refinement(t.string, (s) => s.length > 0, 'NonEmptyString');

/** Python's white space (`str.isspace`), which RAES's `value.strip()` removes. */
export const PYTHON_WHITE_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const SURROUNDING_PYTHON_WHITE_SPACE = new RegExp(`^${PYTHON_WHITE_SPACE}+|${PYTHON_WHITE_SPACE}+$`, 'g');

/** A text without its surrounding white space, as Python's `str.strip()` gives it. */
export const pythonStrip = (s: string): string => s.replace(SURROUNDING_PYTHON_WHITE_SPACE, '');

/** Whether RAES calls a text empty: nothing but white space, as Python's `strip()` reads it. */
export const isBlank = (s: string): boolean => pythonStrip(s) === '';

/** A text RAES requires to be non-empty once stripped of white space. */
export const NonBlankString = t.refinement(t.string, (s) => !isBlank(s), 'a non-blank string');

/** A list of non-blank strings, repeats allowed (RAES refuses a blank entry in these lists, not a repeat). */
export const nonBlankList = (name: string) => t.refinement(t.array(t.string), (xs) => xs.every((x) => !isBlank(x)), name);

/** One of a closed list of strings, named by the list so a failure says what is allowed. */
export const oneOf = <V extends string>(values: ReadonlyArray<V>, name = `one of ${values.join(', ')}`) =>
  t.keyof(Object.fromEntries(values.map((v) => [v, null])) as Record<V, null>, name);

/** A list of non-blank strings without repeats (RAES refuses blank or repeated refs in these lists). */
export const uniqueNames = (name: string, options: { readonly nonEmpty?: boolean; readonly max?: number } = {}) =>
  t.refinement(
    t.array(t.string),
    (xs) =>
      xs.every((x) => !isBlank(x)) &&
      new Set(xs).size === xs.length &&
      (!options.nonEmpty || xs.length > 0) &&
      (options.max === undefined || xs.length <= options.max),
    name,
  );

/** A list whose items are distinct by `keyOf` (RAES refuses repeats in these lists). */
export const distinctList = <C extends t.Mixed>(
  codec: C,
  name: string,
  keyOf: (item: t.TypeOf<C>) => unknown = (item) => item,
  options: { readonly nonEmpty?: boolean } = {},
) => t.refinement(t.array(codec), (xs) => (options.nonEmpty !== true || xs.length > 0) && new Set(xs.map(keyOf)).size === xs.length, name);

/** A field RAES types as optional with a null default: null is accepted and means absent. */
export const orNull = <C extends t.Mixed>(codec: C): t.Type<t.TypeOf<C> | null, unknown, unknown> =>
  new t.Type<t.TypeOf<C> | null, unknown, unknown>(
    codec.name,
    (u): u is t.TypeOf<C> | null => u === null || codec.is(u),
    (u, context) => (u === null ? t.success(null) : codec.validate(u, context)),
    t.identity,
  );

/** An open object: any keys, values not read by the engine. */
export const LooseObject = t.UnknownRecord;

const describeExpected = (type: t.Decoder<unknown, unknown>): string => {
  switch (type.name) {
    case 'PositiveInt':
      return 'an integer >= 1';
    case 'NonNegativeInt':
      return 'an integer >= 0';
    case 'NonEmptyString':
      return 'a non-empty string';
    case 'UnknownRecord':
      return 'a mapping';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'true or false';
    case 'number':
      return 'a number';
    default:
      if (objectCodecs.has(type)) return `a mapping (${type.name})`;
      if (type.name.startsWith('Array<')) return `a list (${type.name})`;
      return type.name;
  }
};

const describeActual = (value: unknown, authored: string | undefined): string => {
  if (authored !== undefined) return authored;
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large to represent';
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return `a number beyond ${MAX_EXACT_INTEGER} (about ${String(value)}), too large to read exactly`;
  }
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/** The dotted path of a failure, without the member indices io-ts adds for intersections. */
const pathOf = (context: t.Context): string => {
  const keys: string[] = [];
  for (let i = 1; i < context.length; i += 1) {
    const parent = context[i - 1];
    const entry = context[i];
    if (parent === undefined || entry === undefined) continue;
    const parentTag = (parent.type as { _tag?: string })._tag;
    if (parentTag === 'IntersectionType' || parentTag === 'UnionType') continue;
    if (entry.key !== '') keys.push(entry.key);
  }
  return keys.length === 0 ? '(document root)' : keys.join('.');
};

/**
 * One diagnostic per failure, de-duplicated (intersections can report one value twice). `authoredText`
 * gives, by path, how a number was written where its value reads differently (1.0, 0x10, a number too
 * large to hold exactly), so a diagnostic quotes the author.
 */
export const reportDecodeErrors = (
  errors: t.Errors,
  codes: { readonly shape: DiagnosticCode; readonly unknownKey: DiagnosticCode },
  authoredText: ReadonlyMap<string, string> = new Map(),
): Diagnostic[] => {
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const failure of errors) {
    const path = pathOf(failure.context);
    const last = failure.context[failure.context.length - 1];
    let diagnostic: Diagnostic;
    if (failure.message !== undefined && failure.message.startsWith(UNKNOWN_KEY_MARK)) {
      diagnostic = error(codes.unknownKey, path, `${failure.message}. Remove or rename it.`);
    } else if (failure.message !== undefined) {
      diagnostic = error(codes.shape, path, failure.message);
    } else if (failure.value === undefined) {
      const expected = last === undefined ? 'a value' : describeExpected(last.type);
      diagnostic = error(codes.shape, path, `missing required field ${path}: add ${expected}.`);
    } else {
      const expected = last === undefined ? 'a value' : describeExpected(last.type);
      diagnostic = error(
        codes.shape,
        path,
        `expected ${expected} at ${path}, got ${describeActual(failure.value, authoredText.get(path))}.`,
      );
    }
    const key = `${diagnostic.code}|${diagnostic.address}|${diagnostic.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      diagnostics.push(diagnostic);
    }
  }
  return diagnostics;
};

/**
 * One of a closed list, matched as RAES matches the enums it normalises (case-insensitive, `-` for `_`);
 * decodes to the listed spelling.
 */
export const normalizedOneOf = <V extends string>(values: ReadonlyArray<V>, normalize: (s: string) => string) => {
  const name = `one of ${values.join(', ')}`;
  const known = new Set<string>(values);
  return new t.Type<V, string, unknown>(
    name,
    (u): u is V => typeof u === 'string' && known.has(u),
    (u, context) => {
      if (typeof u !== 'string') return t.failure(u, context);
      const value = normalize(u);
      return known.has(value) ? t.success(value as V) : t.failure(u, context);
    },
    t.identity,
  );
};
