import * as t from 'io-ts';
import { InvocationPortValuesCodec } from '../../domain/invocation';
import type { RemoteAccess } from '../../domain/ports/remote-ports';

/** A port's remote access (domain/ports/remote-ports.ts) as it crosses a process boundary. */
export const RemoteAccessCodec: t.Type<RemoteAccess, RemoteAccess> = t.readonly(
  t.type({
    url: t.string,
    invocation_action_instance_id: t.string,
    secret: t.string,
  }),
);

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
