import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Per-invocation secrets of a server on 127.0.0.1 (the remote port, the MCP gateway). Each grant gets
 * a fresh random secret, kept only as its SHA-256 digest; a check compares digests in constant time.
 * Revoking (at close) kills the secret: it never opens its grant again, but it is still recognised as
 * closed, so its holder learns why its late call failed, until it is forgotten among the oldest of
 * CLOSED_SECRETS_REMEMBERED.
 */

export const CLOSED_SECRETS_REMEMBERED = 10_000;

/** What a secret opens for the invocation a request names. */
export type SecretCheck<T> =
  | { readonly kind: 'granted'; readonly value: T }
  | { readonly kind: 'closed' }
  /** The secret of another invocation that is still granted. */
  | { readonly kind: 'foreign' }
  | { readonly kind: 'unknown' };

/** What a secret opens when it alone selects the invocation. */
export type SecretLookup<T> =
  | { readonly kind: 'granted'; readonly invocationId: string; readonly value: T }
  | { readonly kind: 'closed' }
  | { readonly kind: 'unknown' };

interface Grant<T> {
  readonly value: T;
  readonly digest: Buffer;
}

const digestOf = (secret: string): Buffer => createHash('sha256').update(secret).digest();

export class InvocationSecrets<T> {
  private readonly granted = new Map<string, Grant<T>>();
  /** Hex digest of each granted secret -> its invocation. */
  private readonly grantedByDigest = new Map<string, string>();
  /** Digests of closed invocations' secrets, oldest first: invocation -> digest. */
  private readonly closed = new Map<string, Buffer>();
  /** Hex digest of each remembered closed secret -> its invocation. */
  private readonly closedByDigest = new Map<string, string>();

  /** A fresh secret for the invocation; hand it only to that invocation's harness or agent. */
  grant(invocationId: string, value: T): string {
    const secret = randomBytes(32).toString('base64url');
    const previous = this.granted.get(invocationId);
    if (previous !== undefined) this.grantedByDigest.delete(previous.digest.toString('hex'));
    const digest = digestOf(secret);
    this.granted.set(invocationId, { value, digest });
    this.grantedByDigest.set(digest.toString('hex'), invocationId);
    return secret;
  }

  /** The invocation closed: its secret dies. */
  revoke(invocationId: string): void {
    const grant = this.granted.get(invocationId);
    if (grant === undefined) return;
    this.granted.delete(invocationId);
    this.grantedByDigest.delete(grant.digest.toString('hex'));
    this.closed.set(invocationId, grant.digest);
    this.closedByDigest.set(grant.digest.toString('hex'), invocationId);
    if (this.closed.size > CLOSED_SECRETS_REMEMBERED) {
      const oldest = this.closed.entries().next();
      if (oldest.done !== true) {
        const [id, digest] = oldest.value;
        this.closed.delete(id);
        this.closedByDigest.delete(digest.toString('hex'));
      }
    }
  }

  /** What the secret opens for the named invocation. */
  check(invocationId: string, secret: string): SecretCheck<T> {
    const digest = digestOf(secret);
    const grant = this.granted.get(invocationId);
    if (grant !== undefined && timingSafeEqual(grant.digest, digest)) return { kind: 'granted', value: grant.value };
    const closedDigest = this.closed.get(invocationId);
    if (closedDigest !== undefined && timingSafeEqual(closedDigest, digest)) return { kind: 'closed' };
    return this.grantedByDigest.has(digest.toString('hex')) ? { kind: 'foreign' } : { kind: 'unknown' };
  }

  /** What the secret opens, whichever invocation it was granted for. */
  find(secret: string): SecretLookup<T> {
    const hex = digestOf(secret).toString('hex');
    const invocationId = this.grantedByDigest.get(hex);
    const grant = invocationId === undefined ? undefined : this.granted.get(invocationId);
    if (invocationId !== undefined && grant !== undefined) return { kind: 'granted', invocationId, value: grant.value };
    return this.closedByDigest.has(hex) ? { kind: 'closed' } : { kind: 'unknown' };
  }

  clear(): void {
    this.granted.clear();
    this.grantedByDigest.clear();
    this.closed.clear();
    this.closedByDigest.clear();
  }
}

/** The secret of `Authorization: Bearer <secret>`; '' when the header is missing or of another scheme. */
export const bearerSecret = (request: IncomingMessage): string => {
  const header = request.headers.authorization;
  // The scheme's name is case-insensitive (RFC 9110): `bearer` is `Bearer`.
  return header !== undefined && /^bearer /i.test(header) ? header.slice('Bearer '.length) : '';
};
