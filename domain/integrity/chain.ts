import { hash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../ports/event-store';
import { canonicalJson, jsonString } from './canonical-json';

/**
 * The hash chain of a stream (docs/integrity.md): every event the engine appends carries, in
 * its metadata under CHAIN_KEY, the digest of its own content and of the previous event of its
 * stream. Editing, dropping or reordering an event breaks the chain at that event.
 *
 * Two link formats: version 1 (hex digests over the event's data itself, members `digest` and
 * `previous`), which stores written before version 2 hold and every check still reads, and version 2
 * (base64url digests over the event's data digest, members `d` and `p`), which the engine writes.
 */

export const CHAIN_KEY = 'raes_chain';
export type ChainVersion = 1 | 2;
/** The version every new link is written in. */
export const CHAIN_VERSION: ChainVersion = 2;

/** A link as the check reads it, whichever format its event carries. `previous` is null for a stream's first event. */
export type ChainLink = {
  readonly v: ChainVersion;
  readonly digest: string;
  readonly previous: string | null;
};

export const sha256Hex = (text: string): string => hash('sha256', text, 'hex');
export const sha256Base64url = (text: string): string => hash('sha256', text, 'base64url');

/**
 * The data digest of an event (version 2): the SHA-256 (lowercase hex) of its type, a line feed and
 * the canonical JSON of its data. The engine takes it once per event, for the event's id and its link.
 */
export const dataDigest = (type: string, canonicalData: string): string => sha256Hex(`${type}\n${canonicalData}`);

/** The JSON text of a link's predecessor: `null` for a stream's first event, else the digest as a JSON string. */
export const previousDigestText = (previous: string | null): string => (previous === null ? 'null' : jsonString(previous));

/** The text a version-1 link digest is taken over: canonicalJson({ data, previous, revision, stream, type }). */
const linkedContentV1 = (previous: string | null, stream: string, revision: number, type: string, canonicalData: string): string =>
  `{"data":${canonicalData},"previous":${previousDigestText(previous)},"revision":${revision},"stream":${jsonString(stream)},"type":${jsonString(type)}}`;

/**
 * The version-2 link digest from the JSON texts of its members: `previousText` is `null` or a JSON
 * string, `streamText` and `dataText` JSON strings. A writer that keeps these texts writes each once.
 * The text digested is canonicalJson({ data_sha256, previous, revision, stream, v: 2 }), its members in
 * their sorted order (a revision is a whole number, written as String writes it).
 */
export const linkDigestOfTexts = (previousText: string, streamText: string, revision: number, dataText: string): string =>
  sha256Base64url(`{"data_sha256":${dataText},"previous":${previousText},"revision":${revision},"stream":${streamText},"v":2}`);

/** The version-2 link digest of an event whose data digest is `dataSha256`. */
export const linkDigestOfData = (previous: string | null, stream: string, revision: number, dataSha256: string): string =>
  linkDigestOfTexts(previousDigestText(previous), jsonString(stream), revision, jsonString(dataSha256));

/** The link digest of an event in `version`, whose data's canonical JSON is `canonicalData`. */
export const linkDigest = (version: ChainVersion, previous: string | null, stream: string, revision: number, type: string, canonicalData: string): string =>
  version === 1
    ? sha256Hex(linkedContentV1(previous, stream, revision, type, canonicalData))
    : linkDigestOfData(previous, stream, revision, dataDigest(type, canonicalData));

export const chainLink = (previous: string | null, stream: string, revision: number, type: string, data: JsonValue, version: ChainVersion = CHAIN_VERSION): ChainLink => ({
  v: version,
  digest: linkDigest(version, previous, stream, revision, type, canonicalJson(data)),
  previous,
});

/** The value a link is stored as under CHAIN_KEY, in its version's format. */
export const storedLink = (link: ChainLink): JsonObject =>
  link.v === 1 ? { v: 1, digest: link.digest, previous: link.previous } : { v: 2, d: link.digest, p: link.previous };

/**
 * `JSON.stringify({ [CHAIN_KEY]: storedLink(link) })`, written directly: it is written for every event.
 * Digests are hex or base64url, which need no escape.
 */
export const linkMetadataJson = (link: ChainLink): string => {
  const previous = link.previous === null ? 'null' : `"${link.previous}"`;
  return link.v === 1
    ? `{"${CHAIN_KEY}":{"v":1,"digest":"${link.digest}","previous":${previous}}}`
    : `{"${CHAIN_KEY}":{"v":2,"d":"${link.digest}","p":${previous}}}`;
};

/** The link digest an event carries, or null when it carries no link (or a malformed one). */
export const linkDigestOf = (event: { readonly metadata?: JsonObject | null | undefined }): string | null => linkOf(event.metadata ?? undefined)?.digest ?? null;

/** The link an event's metadata carries, or undefined when it carries none or a malformed one. */
export const linkOf = (metadata: JsonObject | undefined): ChainLink | undefined => {
  const link = metadata?.[CHAIN_KEY];
  if (typeof link !== 'object' || link === null || Array.isArray(link)) return undefined;
  const stored = link as { readonly [key: string]: JsonValue };
  const v = stored.v;
  const digest = v === 2 ? stored.d : v === 1 ? stored.digest : undefined;
  const previous = v === 2 ? stored.p : stored.previous;
  if (typeof digest !== 'string' || !(previous === null || typeof previous === 'string')) return undefined;
  return { v: v as ChainVersion, digest, previous };
};
