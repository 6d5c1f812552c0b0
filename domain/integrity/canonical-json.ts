import type { JsonValue } from '../ports/event-store';

/**
 * Canonical JSON after RFC 8785 (JCS), the text every history digest is taken over, so that any
 * language can recompute it: no whitespace, object members sorted by their names' UTF-16 code units,
 * strings escaped as JSON.stringify escapes them, numbers in ECMAScript's shortest round-trip form
 * (which JSON.stringify writes). A number that is not finite has no JSON text and is refused.
 */
export const canonicalJson = (value: JsonValue): string => {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`canonical JSON has no text for the number ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const object = value as { readonly [key: string]: JsonValue };
  // Array.prototype.sort compares strings by UTF-16 code units, the order RFC 8785 asks for.
  const names = Object.keys(object)
    .filter((name) => object[name] !== undefined)
    .sort();
  return `{${names.map((name) => `${JSON.stringify(name)}:${canonicalJson(object[name] as JsonValue)}`).join(',')}}`;
};
