/**
 * Checks on the characters of text the engine reads or keeps. A file's bytes that are not UTF-8 reach
 * the scenario and manifest loaders as lone surrogates (adapters/files/read-text.ts keeps them so), and
 * a string handed over directly (a loader's text, an agent's tool call id or reason) can hold lone
 * surrogates too: neither is valid UTF-8 text, which RAES requires and an export must be.
 */

/** Half of a surrogate pair without its other half (with the `u` flag, a whole pair is one character and does not match). */
export const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const BYTE_ORDER_MARK = '\uFEFF';

/** Line and column (both from 1) of the first character that is not valid UTF-8 text, if any. */
export const firstMalformedPosition = (text: string): { readonly line: number; readonly column: number } | undefined => {
  const found = LONE_SURROGATE.exec(text);
  if (found === null) return undefined;
  const before = text.slice(0, found.index);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: found.index - lineStart + 1 };
};

/** The text without a leading UTF-8 byte-order mark, which editors on Windows often write. */
export const withoutByteOrderMark = (text: string): string => (text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text);

/** Where to cut `text` to at most `max` code units without separating the two halves of a surrogate pair. */
export const endOfWholeCharacters = (text: string, max: number): number => {
  const last = text.charCodeAt(max - 1);
  return last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
};
