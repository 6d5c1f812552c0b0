import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBoundedBody } from '../../../adapters/http/body-reader';

/** The bounded body reader on a real HTTP server: whole bodies up to the bound, 413 past it. */
describe('readBoundedBody', () => {
  const MAX = 64;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      void readBoundedBody(request, MAX).then((body) => {
        const status = body.kind === 'read' ? 200 : 413;
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads a body at the bound whole', async () => {
    const text = 'é'.repeat(MAX / 2);
    const response = await fetch(url, { method: 'POST', body: text });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ kind: 'read', text });
  });

  it('reads an empty body as empty text', async () => {
    const response = await fetch(url, { method: 'POST' });
    expect(await response.json()).toEqual({ kind: 'read', text: '' });
  });

  it('answers too_large one byte past the bound, and the answer reaches a caller still sending', async () => {
    const response = await fetch(url, { method: 'POST', body: 'x'.repeat(MAX + 1) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ kind: 'too_large', maxBytes: MAX });
    const large = await fetch(url, { method: 'POST', body: 'x'.repeat(4 << 20) });
    expect(large.status).toBe(413);
  });
});
