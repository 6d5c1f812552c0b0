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

/**
 * Characters a terminal acts on or lays out instead of showing: C0 and C1 controls (line breaks and
 * escape sequences among them), DEL, line and paragraph separators, the bidirectional marks and
 * overrides that reorder what follows them, characters that show as nothing (soft hyphen, zero-width
 * spaces and joiners, word joiner and invisible operators, byte-order mark, interlinear annotation
 * marks), and a lone surrogate.
 */
const UNSHOWABLE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff\\ufff9-\\ufffb]|${LONE_SURROGATE.source}`, 'gu');
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const escapeOne = (char: string): string => NAMED_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * False when no character of `text` is one UNSHOWABLE matches: a scan of its codes, several times
 * faster than the expression on the short cells an audit of a million events prints by the million.
 */
const mayHoldUnshowable = (text: string): boolean => {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0xad || code === 0x061c || (code >= 0x200b && code <= 0x206f) || code === 0xfeff) return true;
    if ((code >= 0xd800 && code <= 0xdfff) || (code >= 0xfff9 && code <= 0xfffb)) return true;
  }
  return false;
};

/** The text with every character a terminal would act on or not show escaped as JSON escapes it (`\n`, `\u001b`). */
export const escapeUnshowable = (text: string): string => (mayHoldUnshowable(text) ? text.replace(UNSHOWABLE, escapeOne) : text);
