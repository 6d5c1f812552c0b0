import * as t from 'io-ts';

/**
 * Turns io-ts validation errors into sentences a person can act on:
 * "expected string at target_addresses.1, got 42".
 */
const describeValue = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  try {
    const text = JSON.stringify(value);
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  } catch {
    return typeof value;
  }
};

type Tagged = { readonly _tag?: string; readonly type?: Tagged };

/** Whether `type` is an intersection, itself or under the wrappers that keep the context (exact, readonly, refinement). */
const isIntersection = (type: t.Decoder<unknown, unknown>): boolean => {
  let inner: Tagged | undefined = type as Tagged;
  while (inner !== undefined && (inner._tag === 'ExactType' || inner._tag === 'ReadonlyType' || inner._tag === 'RefinementType')) inner = inner.type;
  return inner?._tag === 'IntersectionType';
};

const pathOf = (context: t.Context): string => {
  const keys: string[] = [];
  for (let index = 0; index < context.length; index += 1) {
    const entry = context[index]!;
    // The root entry has an empty key, and an intersection's parts are keyed by their index: neither is a place in the value.
    const previous = context[index - 1];
    if (entry.key !== '' && (previous === undefined || !isIntersection(previous.type))) keys.push(entry.key);
  }
  return keys.length === 0 ? '(root)' : keys.join('.');
};

export const describeValidationError = (error: t.ValidationError): string => {
  if (error.message !== undefined) return error.message;
  const last = error.context[error.context.length - 1];
  const expected = last === undefined ? 'a value' : last.type.name;
  return `expected ${expected} at ${pathOf(error.context)}, got ${describeValue(error.value)}`;
};

const kindOf = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  return `a ${typeof value}`;
};

/** As describeValidationError, naming only the kind of the value found: for text that is stored. */
export const describeValidationErrorWithoutValue = (error: t.ValidationError): string => {
  const last = error.context[error.context.length - 1];
  const expected = last === undefined ? 'a value' : last.type.name;
  return `expected ${expected} at ${pathOf(error.context)}, got ${kindOf(error.value)}`;
};

export const describeValidationErrors = (errors: t.Errors): string =>
  errors.map(describeValidationError).join('; ');
