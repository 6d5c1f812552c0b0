import type { InvocationToolActionPort } from './invocation-port';

/**
 * What a harness in another process needs to reach its invocation's port: where, and the secret
 * that authorises it. Hand it only to that invocation's harness; it dies when the invocation closes.
 */
export type RemoteAccess = {
  readonly url: string;
  readonly invocation_action_instance_id: string;
  readonly secret: string;
};

/** Makes attached ports reachable from other processes (adapters/http implements it over HTTP). */
export interface RemotePortGrants {
  /** Opens `port` to whoever holds the returned access, until revoked. */
  grant(port: InvocationToolActionPort): RemoteAccess;
  /** Closes the invocation's port to remote callers; later calls are refused as closed. */
  revoke(invocationActionInstanceId: string): void;
}
