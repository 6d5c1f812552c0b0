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

/**
 * A digest whose bytes give it back: 43 base64url characters, the last one carrying 4 bits and two zero
 * bits (any other last character would decode to the same bytes and not come back as written).
 */
const DIGEST = '[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]';
const LINK_ONLY = new RegExp(`^\\{"raes_chain":\\{"v":2,"d":"(${DIGEST})","p":(?:null|"(${DIGEST})")\\}\\}$`);

/** Encodes metadata texts into column values; a column value it returns is valid until its next call. */
class MetadataColumnWriter {
  constructor() {
    this.scratch = Buffer.alloc(WITH_PREVIOUS);
    this.scratch[0] = LINK_TAG;
    this.withoutPrevious = this.scratch.subarray(0, WITHOUT_PREVIOUS);
  }

  /** The column value for metadata whose JSON text is `text` (null for none). */
  columnOf(text) {
    if (text === null || (text.length !== TEXT_WITH_PREVIOUS && text.length !== TEXT_WITHOUT_PREVIOUS)) return text;
    const link = LINK_ONLY.exec(text);
    if (link === null) return text;
    this.scratch.write(link[1], 1, 'base64url');
    if (link[2] === undefined) return this.withoutPrevious;
    this.scratch.write(link[2], WITHOUT_PREVIOUS, 'base64url');
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
