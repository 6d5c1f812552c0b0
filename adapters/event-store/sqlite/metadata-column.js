'use strict';
/**
 * How the SQLite store keeps an event's metadata in the `metadata` column: as its JSON text, except for
 * the metadata nearly every event carries, a version-2 chain link alone, written exactly as the chain
 * writes it (`{"raes_chain":{"v":2,"d":"<digest>","p":"<digest>"|null}}`). That one is kept as a BLOB
 * of the digests' bytes: a tag byte (2, the link's version), the 32 bytes of `d`, and the 32 bytes of
 * `p` unless it is null. 65 bytes instead of 122 characters: rows of about a kilobyte fill 4 KiB pages a
 * few at a time, and with the link as text the engine's events took 29% more pages than without a link,
 * as bytes 10% (docs/decisions.md). Reading a BLOB gives back the very text that was written, so every reader, the
 * chain's check included, sees what the writer appended.
 *
 * Plain CommonJS, like append-batch.js: the writer (on the writer thread or this one) encodes as it
 * inserts, into one scratch buffer it binds (SQLite copies a bound BLOB), so no buffer is made per event.
 * Types: metadata-column.d.ts.
 */

const LINK_TAG = 2;
const DIGEST_BYTES = 32;
const WITHOUT_PREVIOUS = 1 + DIGEST_BYTES;
const WITH_PREVIOUS = 1 + 2 * DIGEST_BYTES;
/** The two lengths of a link's text: with `"p":null`, and with a previous digest. */
const TEXT_WITHOUT_PREVIOUS = 81;
const TEXT_WITH_PREVIOUS = 122;

/** A digest's base64url text: 43 characters for its 32 bytes. */
const DIGEST_TEXT = 43;
/** The link's text around its digests: before `d`, between `d` and `p`, after `p`, and after `d` when `p` is null. */
const BEFORE_D = '{"raes_chain":{"v":2,"d":"';
const BEFORE_P = '","p":"';
const AFTER_P = '"}}';
const NULL_P = '","p":null}}';
const D_AT = BEFORE_D.length;
const BEFORE_P_AT = D_AT + DIGEST_TEXT;
const P_AT = BEFORE_P_AT + BEFORE_P.length;

/** The 6-bit value of each base64url character code; 64 for any other code. */
const SEXTETS = new Uint8Array(128).fill(64);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
for (let value = 0; value < 64; value += 1) SEXTETS[ALPHABET.charCodeAt(value)] = value;

const sextetAt = (text, index) => {
  const code = text.charCodeAt(index);
  return code < 128 ? SEXTETS[code] : 64;
};

/**
 * Decodes the digest at `at` of `text` into `into` from `offset`, and says whether it was one whose 32
 * bytes give it back: 43 base64url characters, the last carrying 4 bits and two zero bits (any other
 * last character would decode to the same bytes and not come back as written). Decoded code by code,
 * with no regular expression or substring: it runs for every event written.
 */
const decodedDigest = (text, at, into, offset) => {
  let out = offset;
  const whole = at + DIGEST_TEXT - 3;
  for (let index = at; index < whole; index += 4) {
    const a = sextetAt(text, index);
    const b = sextetAt(text, index + 1);
    const c = sextetAt(text, index + 2);
    const d = sextetAt(text, index + 3);
    if ((a | b | c | d) > 63) return false;
    into[out] = (a << 2) | (b >> 4);
    into[out + 1] = ((b & 15) << 4) | (c >> 2);
    into[out + 2] = ((c & 3) << 6) | d;
    out += 3;
  }
  const a = sextetAt(text, whole);
  const b = sextetAt(text, whole + 1);
  const c = sextetAt(text, whole + 2);
  if ((a | b | c) > 63 || (c & 3) !== 0) return false;
  into[out] = (a << 2) | (b >> 4);
  into[out + 1] = ((b & 15) << 4) | (c >> 2);
  return true;
};

/** Encodes metadata texts into column values; a column value it returns is valid until its next call. */
class MetadataColumnWriter {
  constructor() {
    this.scratch = Buffer.alloc(WITH_PREVIOUS);
    this.scratch[0] = LINK_TAG;
    this.withoutPrevious = this.scratch.subarray(0, WITHOUT_PREVIOUS);
  }

  /** The column value for metadata whose JSON text is `text` (null for none). */
  columnOf(text) {
    if (text === null) return text;
    const withPrevious = text.length === TEXT_WITH_PREVIOUS;
    if (!withPrevious && text.length !== TEXT_WITHOUT_PREVIOUS) return text;
    if (!text.startsWith(BEFORE_D) || !decodedDigest(text, D_AT, this.scratch, 1)) return text;
    if (!withPrevious) return text.endsWith(NULL_P) ? this.withoutPrevious : text;
    if (!text.startsWith(BEFORE_P, BEFORE_P_AT) || !text.endsWith(AFTER_P) || !decodedDigest(text, P_AT, this.scratch, WITHOUT_PREVIOUS)) return text;
    return this.scratch;
  }
}

/**
 * The metadata a column value holds. A BLOB that is not a link as MetadataColumnWriter writes it (the
 * file was edited) reads as metadata with an unreadable link, which the chain's check reports.
 */
const metadataOfColumn = (column) => {
  if (column === null) return undefined;
  if (typeof column === 'string') return JSON.parse(column);
  if (column[0] !== LINK_TAG || (column.length !== WITH_PREVIOUS && column.length !== WITHOUT_PREVIOUS)) {
    return { raes_chain: { unreadable: column.toString('base64url') } };
  }
  const previous = column.length === WITH_PREVIOUS ? column.toString('base64url', WITHOUT_PREVIOUS, WITH_PREVIOUS) : null;
  return { raes_chain: { v: 2, d: column.toString('base64url', 1, WITHOUT_PREVIOUS), p: previous } };
};

module.exports = { MetadataColumnWriter, metadataOfColumn };
