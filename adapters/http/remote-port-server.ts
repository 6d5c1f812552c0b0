import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import * as t from 'io-ts';
import { describeValidationErrors, type ActionResult, type ToolActionRequest } from '../../domain/invocation';
import type { InvocationToolActionPort } from '../../domain/ports/invocation-port';
import type { RemoteAccess, RemotePortGrants } from '../../domain/ports/remote-ports';
import { readBoundedBody } from './body-reader';
import { InvocationSecrets, bearerSecret } from './invocation-secrets';
import { REMOTE_VERBS, type RemoteVerb } from './remote-access';
import { listenOnLoopback, stopServer } from './loopback-server';

/**
 * The port over HTTP on 127.0.0.1. Each granted invocation gets its own random secret; a request must
 * carry the secret of the invocation its path names. A missing or unknown secret is refused with 401,
 * the secret of another invocation with 403. Revoking (at close) kills the secret: it never reaches
 * the port again, and its holder is answered `invocation_closed` (the harness of a closed invocation
 * learns why its late call failed) until the server forgets it among the oldest of
 * CLOSED_SECRETS_REMEMBERED (invocation-secrets.ts). Nothing of a request body is ever logged.
 */

const ActionBodyCodec = t.type({ action_instance_id: t.string });
/** A member that must be there, whatever it holds (the port judges what it holds): `t.unknown` lets an absent one through. */
const Present = new t.Type<unknown, unknown, unknown>('present', (u): u is unknown => u !== undefined, (u, c) => (u === undefined ? t.failure(u, c) : t.success(u)), t.identity);

const BODY_CODECS = {
  admit: t.type({ request: Present }),
  'admit-and-dispatch': t.type({ request: Present }),
  dispatch: ActionBodyCodec,
  cancel: ActionBodyCodec,
  complete: t.type({ action_instance_id: t.string, result: Present }),
  'report-unknown': t.type({ action_instance_id: t.string, reason: t.string }),
} as const;

const MAX_BODY_BYTES = 1 << 20;

const isVerb = (value: string): value is RemoteVerb => (REMOTE_VERBS as readonly string[]).includes(value);

class HttpRefusal {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly message: string,
  ) {}
}

/** The request body as JSON; an empty body is `{}`. */
const readBody = async (request: IncomingMessage): Promise<unknown> => {
  const body = await readBoundedBody(request, MAX_BODY_BYTES);
  if (body.kind === 'too_large') {
    throw new HttpRefusal(413, 'body_too_large', `a request body may hold at most ${body.maxBytes} bytes`);
  }
  if (body.text.trim() === '') return {};
  try {
    return JSON.parse(body.text);
  } catch {
    throw new HttpRefusal(400, 'body_invalid', 'expected a JSON object as the request body');
  }
};

const send = (response: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
};

export class RemotePortServer implements RemotePortGrants {
  private readonly secrets = new InvocationSecrets<InvocationToolActionPort>();
  private server: Server | undefined;
  private baseUrl: string | undefined;

  /** Listens on 127.0.0.1 on an ephemeral port. */
  async start(): Promise<void> {
    if (this.server !== undefined) return;
    const server = createServer((request, response) => {
      this.serve(request, response).catch(() => send(response, 500, { error: 'internal', message: 'the port failed' }));
    });
    const port = await listenOnLoopback(server);
    this.server = server;
    this.baseUrl = `http://127.0.0.1:${port}`;
  }

  get url(): string {
    if (this.baseUrl === undefined) throw new Error('start() the remote port server first');
    return this.baseUrl;
  }

  /** Makes the invocation's port reachable; the secret goes only to that invocation's harness. */
  grant(port: InvocationToolActionPort): RemoteAccess {
    const secret = this.secrets.grant(port.invocation_action_instance_id, port);
    return { url: this.url, invocation_action_instance_id: port.invocation_action_instance_id, secret };
  }

  /** The invocation closed: its secret dies. */
  revoke(invocationActionInstanceId: string): void {
    this.secrets.revoke(invocationActionInstanceId);
  }

  async close(): Promise<void> {
    this.secrets.clear();
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    await stopServer(server);
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const authorised = this.authorise(request);
      if (authorised.kind === 'closed') {
        if (authorised.verb === 'values') throw new HttpRefusal(410, 'invocation_closed', CLOSED_MESSAGE);
        if (request.method !== 'POST') throw new HttpRefusal(405, 'method_not_allowed', `call ${authorised.verb} with POST`);
        send(response, 200, closedAnswer(authorised.verb));
        return;
      }
      const { port, verb } = authorised;
      if (verb === 'values') {
        if (request.method !== 'GET') throw new HttpRefusal(405, 'method_not_allowed', 'read the port values with GET');
        send(response, 200, valuesOf(port));
        return;
      }
      if (request.method !== 'POST') throw new HttpRefusal(405, 'method_not_allowed', `call ${verb} with POST`);
      send(response, 200, await call(port, verb, await readBody(request)));
    } catch (error) {
      if (error instanceof HttpRefusal) send(response, error.status, { error: error.error, message: error.message });
      else throw error;
    }
  }

  private authorise(request: IncomingMessage): Authorised {
    const match = /^\/invocations\/([^/]+)\/([a-z-]+)$/.exec(request.url ?? '');
    if (match === null || !isVerb(match[2] ?? '')) {
      throw new HttpRefusal(404, 'not_found', 'expected /invocations/<invocation action instance id>/<verb>');
    }
    const invocationId = decodedSegment(match[1] ?? '');
    const secret = bearerSecret(request);
    if (secret === '') throw new HttpRefusal(401, 'secret_missing', 'send the invocation secret as "Authorization: Bearer <secret>"');
    const verb = match[2] as RemoteVerb;
    const checked = this.secrets.check(invocationId, secret);
    switch (checked.kind) {
      case 'granted':
        return { kind: 'open', port: checked.value, verb };
      case 'closed':
        return { kind: 'closed', verb };
      case 'foreign':
        throw new HttpRefusal(403, 'secret_foreign', 'the secret belongs to another invocation');
      case 'unknown':
        throw new HttpRefusal(401, 'secret_invalid', 'the secret is wrong, or the invocation has closed');
    }
  }
}

/** A path segment's percent-decoding; a malformed one is the caller's error, never the server's. */
const decodedSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpRefusal(400, 'path_invalid', 'the invocation id in the path is not valid percent-encoding');
  }
};

type Authorised =
  | { readonly kind: 'open'; readonly port: InvocationToolActionPort; readonly verb: RemoteVerb }
  | { readonly kind: 'closed'; readonly verb: RemoteVerb };

const CLOSED_MESSAGE = 'the invocation has returned; its port is closed';

/** What the port itself answers after close, without the port: the secret no longer reaches it. */
const closedAnswer = (verb: Exclude<RemoteVerb, 'values'>) =>
  verb === 'admit' || verb === 'admit-and-dispatch'
    ? { admitted: false, refusal: 'invocation_closed', message: CLOSED_MESSAGE }
    : { accepted: false, refusal: 'invocation_closed', message: CLOSED_MESSAGE };

const valuesOf = (port: InvocationToolActionPort) => ({
  invocation_action_instance_id: port.invocation_action_instance_id,
  participant_address: port.participant_address,
  episode_id: port.episode_id,
  participant_implementation_ref: port.participant_implementation_ref,
  execution_scope_ref: port.execution_scope_ref,
  execution_generation: port.execution_generation,
  observation_point: port.observation_point,
});

const decodeBody = <A>(codec: t.Decoder<unknown, A>, body: unknown): A => {
  const decoded = codec.decode(body);
  if (decoded._tag === 'Left') throw new HttpRefusal(400, 'body_invalid', describeValidationErrors(decoded.left));
  return decoded.right;
};

const call = (port: InvocationToolActionPort, verb: Exclude<RemoteVerb, 'values'>, body: unknown): Promise<unknown> => {
  switch (verb) {
    case 'admit':
      // The decider decodes the request and refuses it with request_invalid when it does not fit.
      return port.admit(decodeBody(BODY_CODECS.admit, body).request as ToolActionRequest);
    case 'admit-and-dispatch':
      return port.admitAndDispatch(decodeBody(BODY_CODECS['admit-and-dispatch'], body).request as ToolActionRequest);
    case 'dispatch':
      return port.dispatch(decodeBody(BODY_CODECS.dispatch, body).action_instance_id);
    case 'cancel':
      return port.cancel(decodeBody(BODY_CODECS.cancel, body).action_instance_id);
    case 'complete': {
      const decoded = decodeBody(BODY_CODECS.complete, body);
      return port.complete(decoded.action_instance_id, decoded.result as ActionResult);
    }
    case 'report-unknown': {
      const decoded = decodeBody(BODY_CODECS['report-unknown'], body);
      return port.reportUnknown(decoded.action_instance_id, decoded.reason);
    }
  }
};
