import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { readBoundedBody } from '../../adapters/http/body-reader';

/**
 * The customer portal the example probes: one login endpoint on 127.0.0.1. It keeps no log and answers
 * only whether the credentials were accepted; the body it receives goes nowhere.
 */

export interface PortalService {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** Login requests received so far. */
  loginRequests(): number;
  close(): Promise<void>;
}

export interface PortalServiceOptions {
  /** The one account the portal accepts. */
  readonly username?: string;
  readonly password?: string;
  /** The session token an accepted login returns; random when absent. */
  readonly sessionToken?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
}

export const DEMO_ACCOUNT = { username: 'portal-prober', password: 'correct horse battery staple' } as const;

const MAX_BODY_BYTES = 16 * 1024;

const credentialsOf = (body: string): { username: unknown; password: unknown } | undefined => {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const record = parsed as Record<string, unknown>;
    return { username: record.username, password: record.password };
  } catch {
    return undefined;
  }
};

export const startPortalService = async (options: PortalServiceOptions = {}): Promise<PortalService> => {
  const username = options.username ?? DEMO_ACCOUNT.username;
  const password = options.password ?? DEMO_ACCOUNT.password;
  const sessionToken = options.sessionToken ?? randomBytes(12).toString('hex');
  let logins = 0;
  const server: Server = createServer((request, response) => {
    const reply = (status: number, body: object): void => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'POST' || request.url !== '/login') return reply(404, { error: 'not_found' });
    logins += 1;
    readBoundedBody(request, MAX_BODY_BYTES).then(
      (body) => {
        if (body.kind === 'too_large') return reply(413, { error: 'too_large' });
        const credentials = credentialsOf(body.text);
        if (credentials === undefined) return reply(400, { error: 'bad_request' });
        const accepted = credentials.username === username && credentials.password === password;
        return accepted ? reply(200, { login: 'accepted', session: sessionToken }) : reply(401, { login: 'rejected' });
      },
      () => reply(400, { error: 'bad_request' }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    loginRequests: () => logins,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
