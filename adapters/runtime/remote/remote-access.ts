import * as t from 'io-ts';
import { InvocationPortValuesCodec } from '../../../domain/invocation';

/**
 * What a harness in another process needs to reach its invocation's port: where, and the secret
 * that authorises it. Hand it only to that invocation's harness; it dies when the invocation closes.
 */
export const RemoteAccessCodec = t.readonly(
  t.type({
    url: t.string,
    invocation_action_instance_id: t.string,
    secret: t.string,
  }),
);
export type RemoteAccess = t.TypeOf<typeof RemoteAccessCodec>;

/** The port's values, as the remote port answers them. */
export const RemotePortValuesCodec = InvocationPortValuesCodec;

/** The verbs of the remote port, one path segment each. */
export const REMOTE_VERBS = ['values', 'admit', 'admit-and-dispatch', 'dispatch', 'complete', 'report-unknown', 'cancel'] as const;
export type RemoteVerb = (typeof REMOTE_VERBS)[number];

export const remotePath = (invocationActionInstanceId: string, verb: RemoteVerb): string =>
  `/invocations/${encodeURIComponent(invocationActionInstanceId)}/${verb}`;

/** The header that carries the secret. */
export const SECRET_HEADER = 'authorization';
export const bearer = (secret: string): string => `Bearer ${secret}`;
