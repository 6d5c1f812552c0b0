import { hash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../ports/event-store';
import { canonicalJson, jsonString } from './canonical-json';
import { linkDigestOf } from './chain';
import { IntegrityVerifier, type IntegrityFinding } from './verify';

/**
 * A signed bundle (docs/integrity.md, signed bundles): the exported history in RAES's wire shapes, the
 * stored events it was rendered from with their chain links, the head of every stream's chain, and an
 * Ed25519 signature over the digest of the canonical JSON of all of it. Pure: the signing and the
 * schema checks are the adapters'.
 */

export const BUNDLE_FORMAT = 'raes-tool-actions-bundle/v1';

/** A stored event as a bundle carries it: positions and revisions as decimal strings, so no language loses precision. */
export interface BundleEvent {
  readonly position: string;
  readonly stream: string;
  readonly revision: string;
  readonly type: string;
  readonly data: JsonValue;
  readonly metadata: JsonObject | null;
}

/** The last event of a stream and its link digest (null for an event written before chaining). */
export interface ChainHead {
  readonly stream: string;
  readonly revision: string;
  readonly digest: string | null;
}

/** Everything the signature covers. */
export interface BundleContent {
  readonly bundle_format: typeof BUNDLE_FORMAT;
  readonly created_at: string;
  readonly history: JsonObject;
  readonly events: readonly BundleEvent[];
  readonly chain_heads: readonly ChainHead[];
}

export interface BundleSignature {
  readonly algorithm: 'ed25519';
  /** sha256 hex of the public key's DER (SubjectPublicKeyInfo): which key to check with. */
  readonly public_key_sha256: string;
  /** base64 of the signature over the UTF-8 bytes of `content_digest`. */
  readonly value: string;
}

export interface Bundle extends BundleContent {
  /** `sha256:` and the hex digest of the canonical JSON of the content. */
  readonly content_digest: string;
  readonly signature: BundleSignature;
}

/** The members of a bundle's content in the order canonical JSON writes them (their names sorted). */
export const CONTENT_MEMBERS = ['bundle_format', 'chain_heads', 'created_at', 'events', 'history'] as const;

/**
 * The content's canonical JSON written a piece at a time, as `export --bundle` writes it and `verify`
 * digests it: the text up to its first event, each event's text after `contentEventSeparator`, the text
 * between the last event and the history's canonical JSON, then CONTENT_END. Together they are exactly
 * the text `contentDigest` hashes.
 */
export const contentTextBeforeEvents = (bundleFormat: string, chainHeads: JsonValue, createdAt: string): string =>
  `{"bundle_format":${jsonString(bundleFormat)},"chain_heads":${canonicalJson(chainHeads)},"created_at":${jsonString(createdAt)},"events":[`;

/** What goes before the event at `index` (0-based): a comma after the first. */
export const contentEventSeparator = (index: number): string => (index === 0 ? '' : ',');

export const CONTENT_BEFORE_HISTORY = '],"history":';

export const CONTENT_END = '}';

/** The digest rule over content held whole; `export --bundle` and `verify` take the same digest a piece at a time. */
export const contentDigest = (content: BundleContent): string => {
  const { bundle_format, chain_heads, created_at, events, history } = content;
  return `sha256:${hash('sha256', canonicalJson({ bundle_format, chain_heads, created_at, events, history } as unknown as JsonValue), 'hex')}`;
};

/** The head of every stream, in the order each stream first appears, kept as events are added. */
export class ChainHeadTracker {
  private readonly heads = new Map<string, ChainHead>();

  add(event: BundleEvent): void {
    this.heads.set(event.stream, { stream: event.stream, revision: event.revision, digest: linkDigestOf(event) });
  }

  get streams(): number {
    return this.heads.size;
  }

  list(): readonly ChainHead[] {
    return [...this.heads.values()];
  }

  /** The first difference between these heads and the ones a bundle claims, both ways. */
  mismatch(claimed: readonly ChainHead[]): BundleFinding | undefined {
    const held = new Map(this.heads);
    for (const head of claimed) {
      const found = held.get(head.stream);
      if (found === undefined) return { code: 'chain_head_mismatch', message: `the bundle names a head for stream '${head.stream}' but holds none of its events: the stream was removed` };
      if (found.revision !== head.revision) {
        return { code: 'chain_head_mismatch', message: `stream '${head.stream}' ends at revision ${found.revision} in the bundle, but its chain head is revision ${head.revision}: events at its end were removed or added` };
      }
      if (found.digest !== head.digest) {
        return { code: 'chain_head_mismatch', message: `stream '${head.stream}' ends at revision ${found.revision} as its chain head says, but its last event's link digest is not the head's: that event or the head was changed` };
      }
      held.delete(head.stream);
    }
    const extra = held.keys().next();
    if (extra.done !== true) return { code: 'chain_head_mismatch', message: `stream '${extra.value}' has events in the bundle but no chain head: it was added` };
    return undefined;
  }
}

/** The head of every stream of `events`, in the order each stream first appears. */
export const chainHeads = (events: readonly BundleEvent[]): readonly ChainHead[] => {
  const tracker = new ChainHeadTracker();
  for (const event of events) tracker.add(event);
  return tracker.list();
};

export type BundleFindingCode = IntegrityFinding['code'] | 'chain_head_mismatch' | 'content_digest_mismatch';

export interface BundleFinding {
  readonly code: BundleFindingCode;
  readonly message: string;
}

/**
 * A bundle's events checked one at a time, in order: each stream's chain and the seals (the store's
 * check, docs/integrity.md), then the heads they end at against the bundle's chain heads.
 */
export class BundleEventCheck {
  private readonly verifier = new IntegrityVerifier();
  private readonly heads = new ChainHeadTracker();
  private count = 0;

  add(event: BundleEvent): void {
    this.verifier.add({
      position: BigInt(event.position),
      stream: event.stream,
      revision: BigInt(event.revision),
      type: event.type,
      data: event.data,
      metadata: event.metadata ?? undefined,
    });
    this.heads.add(event);
    this.count += 1;
  }

  get events(): number {
    return this.count;
  }

  /** How many of the events carry a chain link (a store's events written before chaining do not). */
  get chainedEvents(): number {
    return this.verifier.report().chained_events;
  }

  /** The first finding over the events added and the bundle's chain heads, or none. */
  finding(claimed: readonly ChainHead[]): BundleFinding | undefined {
    const chainFinding = this.verifier.report().findings[0];
    if (chainFinding !== undefined) return { code: chainFinding.code, message: chainFinding.message };
    return this.heads.mismatch(claimed);
  }
}
