import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventStore } from '../../../domain/ports/event-store';
import { AUDIT_PAGE_HTML } from './page';

/**
 * `raes-tools serve`: the audit page on 127.0.0.1. `/` is the page, `/state` the audit as JSON, `/events`
 * server-sent events: one each time the log grew (polled through the store port's `readAll`).
 */

const POLL_MS = 300;

export interface AuditPageServer {
  readonly port: number;
  close(): Promise<void>;
}

/** What the page shows: the audit as JSON-ready data, or why it failed. */
export type AuditState = () => Promise<{ readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string }>;

export const startAuditPage = async (store: EventStore, auditState: AuditState, port: number): Promise<AuditPageServer> => {
  const clients = new Set<ServerResponse>();
  let last: bigint | undefined;
  let busy = false;
  const poll = setInterval(() => {
    if (busy) return;
    busy = true;
    void store
      .readAll({ ...(last === undefined ? {} : { after: last }), maxCount: 1000 })
      .then((read) => {
        if (read.kind !== 'read' || read.events.length === 0) return;
        last = read.events[read.events.length - 1]!.position;
        for (const client of clients) client.write(`data: ${last.toString()}\n\n`);
      })
      .finally(() => {
        busy = false;
      });
  }, POLL_MS);
  // One audit at a time over the one workspace.
  let queue: Promise<unknown> = Promise.resolve();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end('read only\n');
    } else if (path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(AUDIT_PAGE_HTML);
    } else if (path === '/state') {
      const run = queue.then(async () => {
        const report = await auditState();
        if (!report.ok) response.writeHead(500, { 'content-type': 'text/plain' }).end(`${report.message}\n`);
        else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(report.value));
      });
      queue = run.catch(() => undefined);
    } else if (path === '/events') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      response.write(': following the log\n\n');
      clients.add(response);
      request.on('close', () => clients.delete(response));
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
      clearInterval(poll);
      for (const client of clients) client.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
