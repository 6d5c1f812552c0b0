import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AUDIT_PAGE_HTML } from './page';

/**
 * `raes-tools serve`: the audit page on 127.0.0.1. `/` is the page; `/events` is a stream of server-sent
 * events from the feed: the whole audit (`snapshot`) when a client connects, then a `patch` per change
 * of the log, holding only what changed; `/state` is the snapshot as one JSON document.
 */

/** A message for the page: `kind` names its server-sent event; the rest is its JSON. */
export type PageMessage = { readonly kind: 'snapshot' | 'patch' | 'failure' } & Readonly<Record<string, unknown>>;

/** What the page follows. */
export interface AuditPageFeed {
  /** Sends `send` a snapshot, then every patch after it, in order, until the returned function is called. */
  connect(send: (message: PageMessage) => void): () => void;
  /** The snapshot alone. */
  snapshot(): Promise<PageMessage>;
}

export interface AuditPageServer {
  readonly port: number;
  close(): Promise<void>;
}

const sse = (message: PageMessage): string => `event: ${message.kind}\ndata: ${JSON.stringify(message)}\n\n`;

export const startAuditPage = async (feed: AuditPageFeed, port: number): Promise<AuditPageServer> => {
  const clients = new Map<ServerResponse, () => void>();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end('read only\n');
    } else if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(AUDIT_PAGE_HTML);
    } else if (path === '/state') {
      void feed.snapshot().then((message) => {
        if (message.kind === 'failure') response.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(message.message)}\n`);
        else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(message));
      });
    } else if (path === '/events') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      response.write(': following the log\n\n');
      clients.set(response, feed.connect((message) => response.write(sse(message))));
      request.on('close', () => {
        clients.get(response)?.();
        clients.delete(response);
      });
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the page is at /\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const [client, disconnect] of clients) {
        disconnect();
        client.end();
      }
      clients.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
