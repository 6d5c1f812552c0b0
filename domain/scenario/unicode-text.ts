/**
 * Checks on the characters of scenario and manifest text. A file's bytes that are not UTF-8 reach the
 * loaders as lone surrogates (adapters/files/read-text.ts keeps them so), and a string handed to the
 * loaders directly can hold lone surrogates too: neither is valid UTF-8 text, which RAES requires.
 */

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
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
