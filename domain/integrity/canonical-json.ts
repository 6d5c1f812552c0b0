import type { JsonValue } from '../ports/event-store';

/**
 * Canonical JSON after RFC 8785 (JCS), the text every history digest is taken over, so that any
 * language can recompute it: no whitespace, object members sorted by their names' UTF-16 code units,
 * strings escaped as JSON.stringify escapes them, numbers in ECMAScript's shortest round-trip form
 * (which JSON.stringify writes). A number that is not finite has no JSON text and is refused.
 *
 * A value whose object members are already in that order at every depth (JSON.parse of canonical
 * text gives one, say) is written by JSON.stringify itself, which then writes the same text faster.
 * Otherwise written with loops and string appends, not map/filter/join: it runs on every event appended.
 */
export const canonicalJson = (value: JsonValue): string => (isCanonicalAsIs(value) ? JSON.stringify(value) : written(value));

const written = (value: JsonValue): string => {
  if (typeof value === 'string') return jsonString(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`canonical JSON has no text for the number ${value}`);
    return JSON.stringify(value);
  }
  if (value === null || typeof value === 'boolean') return value === null ? 'null' : value ? 'true' : 'false';
  if (Array.isArray(value)) {
    const items = value as readonly JsonValue[];
    let text = '[';
    for (let index = 0; index < items.length; index += 1) {
      if (index > 0) text += ',';
      text += written(items[index]!);
    }
    return `${text}]`;
  }
  const object = value as { readonly [key: string]: JsonValue };
  const names = Object.keys(object);
  // Array.prototype.sort compares strings by UTF-16 code units, the order RFC 8785 asks for.
  if (!isSorted(names)) names.sort();
  let text = '{';
  let first = true;
  for (let index = 0; index < names.length; index += 1) {
    const name = names[index]!;
    const member = object[name];
    if (member === undefined) continue;
    text += first ? jsonString(name) : `,${jsonString(name)}`;
    text += `:${written(member)}`;
    first = false;
  }
  return `${text}}`;
};

/** What JSON.stringify escapes in a string: quote, backslash, control characters, lone surrogates (tested as any surrogate). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(text), without its call for the common string that needs no escape. */
export const jsonString = (text: string): string => (NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`);

const isSorted = (names: readonly string[]): boolean => {
  for (let index = 1; index < names.length; index += 1) if (names[index - 1]! > names[index]!) return false;
  return true;
};

/**
 * Whether JSON.stringify writes `value` canonically: every object's members in sorted order (as
 * JSON.stringify enumerates them) and every number finite. Stops at the first member out of order.
 */
const isCanonicalAsIs = (value: JsonValue): boolean => {
  if (typeof value !== 'object' || value === null) return typeof value !== 'number' || Number.isFinite(value);
  if (Array.isArray(value)) {
    const items = value as readonly JsonValue[];
    for (let index = 0; index < items.length; index += 1) if (!isCanonicalAsIs(items[index]!)) return false;
    return true;
  }
  const object = value as { readonly [key: string]: JsonValue };
  let last: string | undefined;
  for (const name in object) {
    if (last !== undefined && last >= name) return false;
    last = name;
    const member = object[name];
    if (member !== undefined && !isCanonicalAsIs(member)) return false;
  }
  return true;
};
