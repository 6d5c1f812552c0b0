import type { IncomingMessage } from 'node:http';

/**
 * An HTTP request body, read whole up to a bound. Past the bound the rest is read and dropped (not
 * kept, and the socket is not destroyed), so the caller's 413 answer still reaches a client that is
 * still sending.
 */

export type BodyRead =
  | { readonly kind: 'read'; readonly text: string }
  | { readonly kind: 'too_large'; readonly maxBytes: number };

export const readBoundedBody = (request: IncomingMessage, maxBytes: number): Promise<BodyRead> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
        resolve({ kind: 'too_large', maxBytes });
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (!tooLarge) resolve({ kind: 'read', text: Buffer.concat(chunks).toString('utf8') });
    });
    request.on('error', reject);
  });
