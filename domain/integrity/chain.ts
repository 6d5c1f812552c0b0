import { hash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../ports/event-store';
import { canonicalJson } from './canonical-json';

/**
 * The hash chain of a stream (docs/integrity.md): every event the engine appends carries, in
 * its metadata under CHAIN_KEY, the digest of its own content and of the previous event of its
 * stream. Editing, dropping or reordering an event breaks the chain at that event.
 */

export const CHAIN_KEY = 'raes_chain';
export const CHAIN_VERSION = 1;

/** What an event's metadata carries under CHAIN_KEY. `previous` is null for a stream's first event. */
export type ChainLink = {
  readonly v: typeof CHAIN_VERSION;
  readonly digest: string;
  readonly previous: string | null;
};

export const sha256Hex = (text: string): string => hash('sha256', text, 'hex');

/** The text a link digest is taken over: the canonical JSON of the event's place, type, data and predecessor. */
export const linkedContent = (previous: string | null, stream: string, revision: number, type: string, data: JsonValue): string =>
  // canonicalJson({ previous, stream, revision, type, data }), its members written in their sorted order.
  `{"data":${canonicalJson(data)},"previous":${previous === null ? 'null' : JSON.stringify(previous)},"revision":${canonicalJson(revision)},"stream":${JSON.stringify(stream)},"type":${JSON.stringify(type)}}`;

export const chainLink = (previous: string | null, stream: string, revision: number, type: string, data: JsonValue): ChainLink => ({
  v: CHAIN_VERSION,
  digest: sha256Hex(linkedContent(previous, stream, revision, type, data)),
  previous,
});

/** The link an event's metadata carries, or undefined when it carries none or a malformed one. */
export const linkOf = (metadata: JsonObject | undefined): ChainLink | undefined => {
  const link = metadata?.[CHAIN_KEY];
  if (typeof link !== 'object' || link === null || Array.isArray(link)) return undefined;
  const { v, digest, previous } = link as { readonly [key: string]: JsonValue };
  if (v !== CHAIN_VERSION || typeof digest !== 'string' || !(previous === null || typeof previous === 'string')) return undefined;
  return { v: CHAIN_VERSION, digest, previous };
};
