import * as t from 'io-ts';

/**
 * Integers and booleans of a scenario as RAES 3.3 reads them. RAES's models are pydantic v2 models in
 * lax mode, so a field typed `int` also takes true/false, a float without a fraction (3.0) and a
 * string of digits ("3", " 1_000 ", "+2", "4.0"), and a field typed `bool` also takes 0/1 and the
 * words pydantic knows (yes/no, on/off, ...). The decoded value is the one RAES reads, so a
 * scenario that writes '3' compiles exactly as one that writes 3.
 */

/** The largest whole number a JavaScript number holds exactly; the engine counts ticks with numbers. */
export const MAX_EXACT_INTEGER = Number.MAX_SAFE_INTEGER;

/** pydantic's integer strings: ASCII digits, single `_` between digits, optional sign, optional `.000`. */
const INTEGER_TEXT = /^[+-]?[0-9](?:_?[0-9])*(?:\.0+)?$/;

/** The white space pydantic trims from a number written as a string: Unicode White_Space (JavaScript's trim also takes U+FEFF and leaves U+0085). */
const SURROUNDING_WHITE_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
const trimWhiteSpace = (text: string): string => text.replace(SURROUNDING_WHITE_SPACE, '');

/** The whole number RAES reads from `u`, exactly, or undefined when pydantic refuses it as an int. */
export const authoredIntegerValue = (u: unknown): bigint | undefined => {
  if (typeof u === 'boolean') return u ? 1n : 0n;
  if (typeof u === 'number') return Number.isInteger(u) ? BigInt(u) : undefined;
  if (typeof u !== 'string') return undefined;
  const text = trimWhiteSpace(u);
  if (!INTEGER_TEXT.test(text)) return undefined;
  const whole = text.replace(/_/g, '').replace(/\.0+$/, '');
  return BigInt(whole.startsWith('+') ? whole.slice(1) : whole);
};

/**
 * A whole number from `min` to `max` (both within the exact range of a number), read as RAES reads an
 * int; decodes to a number. `name` is what a failure says was expected.
 */
export const authoredInteger = (min: number, max: number, name = `an integer from ${min} to ${max}`) => {
  const low = BigInt(min);
  const high = BigInt(max);
  return new t.Type<number, number, unknown>(
    name,
    (u): u is number => typeof u === 'number' && Number.isInteger(u) && u >= min && u <= max,
    (u, context) => {
      const value = authoredIntegerValue(u);
      return value !== undefined && value >= low && value <= high ? t.success(Number(value)) : t.failure(u, context);
    },
    t.identity,
  );
};

/** YAML 1.2 core integer spellings: their digits are exact where a number beyond 2^53 - 1 read from them is not. */
const INTEGER_SOURCE = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;

/** Whether a number was written as an integer (YAML's core schema), not as a float such as 3.0 or 1e3. */
export const isIntegerSource = (source: string): boolean => INTEGER_SOURCE.test(source);

/**
 * An integer exactly as RAES reads it (Python integers of any size): `decoded` unless `source`, how the
 * number was written (the loader's authoredNumbers), is an integer whose digits say more exactly.
 */
export const exactAuthoredInteger = (decoded: bigint, source: string | undefined): bigint =>
  source !== undefined && INTEGER_SOURCE.test(source) ? BigInt(source.replace(/^\+/, '')) : decoded;

/** pydantic's float strings once their `_` are taken out: digits with an optional point and exponent, or a word. */
const FLOAT_TEXT = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const FLOAT_WORD = /^[+-]?(?:inf|infinity|nan)$/i;

/**
 * The number RAES reads from `u` where it types `int | float` (an action argument's `minimum` and
 * `maximum`), or undefined when pydantic refuses it: an int as above, else a float, which pydantic also
 * reads from a string ("1e3", "1_000.5", ".5", "inf", "nan"; `_` only between other characters).
 */
export const authoredNumberValue = (u: unknown): number | undefined => {
  const whole = authoredIntegerValue(u);
  if (whole !== undefined) return Number(whole);
  if (typeof u === 'number') return u;
  if (typeof u !== 'string') return undefined;
  const text = trimWhiteSpace(u);
  if (text.includes('__') || text.startsWith('_') || text.endsWith('_')) return undefined;
  const plain = text.replace(/_/g, '');
  if (FLOAT_WORD.test(plain)) return /nan/i.test(plain) ? Number.NaN : plain.startsWith('-') ? -Infinity : Infinity;
  return FLOAT_TEXT.test(plain) ? Number(plain) : undefined;
};

/** A number as RAES reads an `int | float` field; decodes to the number RAES compares with. */
export const AuthoredNumber = new t.Type<number, number, unknown>(
  'a number',
  (u): u is number => typeof u === 'number',
  (u, context) => {
    const value = authoredNumberValue(u);
    return value === undefined ? t.failure(u, context) : t.success(value);
  },
  t.identity,
);

const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/** true or false as RAES reads a bool: also 1/0 and pydantic's words (yes, no, on, off, y, n, t, f). */
export const AuthoredBoolean = new t.Type<boolean, boolean, unknown>(
  'true or false',
  (u): u is boolean => typeof u === 'boolean',
  (u, context) => {
    if (typeof u === 'boolean') return t.success(u);
    if (u === 1 || u === 0) return t.success(u === 1);
    if (typeof u === 'string') {
      const word = u.toLowerCase();
      if (TRUE_WORDS.has(word)) return t.success(true);
      if (FALSE_WORDS.has(word)) return t.success(false);
    }
    return t.failure(u, context);
  },
  t.identity,
);

/** A decimal digit of any script (Unicode Nd), as Python's `\d`, `str.isdigit` with `int` and `float` read it. */
const DECIMAL_DIGIT = /\p{Nd}/u;

/**
 * A text of decimal digits of any script (and `.`, `-`) with each digit written in ASCII, as Python's
 * `int()` and `float()` read them: a digit's value is its place in its run of ten (Unicode lays out
 * every script's digits 0 to 9 in such runs).
 */
export const asciiDigits = (text: string): string =>
  [...text]
    .map((ch) => {
      if (ch >= '0' && ch <= '9') return ch;
      if (!DECIMAL_DIGIT.test(ch)) return ch;
      let start = ch.codePointAt(0) as number;
      while (start > 0 && DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start -= 1;
      return String(((ch.codePointAt(0) as number) - start) % 10);
    })
    .join('');
