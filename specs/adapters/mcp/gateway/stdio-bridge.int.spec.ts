import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

/**
 * The stdio bridge an agent on stdio runs as its MCP server: a message the gateway does not take fails
 * alone. Here the "gateway" answers every POST with 413, as the real one answers a body over its limit:
 * each request gets a JSON-RPC error with its own id, the relay keeps going, and closing stdin ends
 * the bridge with exit 0 and no stack trace.
 */

jest.setTimeout(30_000);

const BRIDGE = join(__dirname, '../../../../adapters/mcp/gateway/stdio-bridge.ts');

const request = (id: number, method: string): string => `${JSON.stringify({ jsonrpc: '2.0', id, method, params: {} })}\n`;

describe('the stdio bridge', () => {
  let gateway: Server;
  let url: string;
  let posts = 0;

  beforeAll(async () => {
    gateway = createServer((req, res) => {
      posts += 1;
      req.resume();
      res.writeHead(413, { 'content-type': 'text/plain' }).end('request body too large');
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    const address = gateway.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/mcp`;
  });

  afterAll(() => new Promise<void>((resolve) => gateway.close(() => resolve())));

  it('answers each request the gateway refuses with an error of its own id, and goes on', async () => {
    const bridge = spawn(process.execPath, ['--import', 'tsx', BRIDGE], {
      env: { ...process.env, RAES_GATEWAY_URL: url, RAES_GATEWAY_SECRET: 'secret' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    bridge.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    bridge.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const ended = new Promise<number | null>((resolve) => bridge.once('exit', resolve));
    const answers = async (count: number): Promise<Array<{ id: number; error?: { code: number; message: string } }>> => {
      for (let waited = 0; stdout.split('\n').filter(Boolean).length < count && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      return stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: number });
    };

    bridge.stdin.write(request(1, 'tools/call'));
    expect((await answers(1)).map((answer) => answer.id)).toEqual([1]);
    bridge.stdin.write(request(2, 'tools/list'));
    const both = await answers(2);
    expect(both.map((answer) => [answer.id, answer.error?.code])).toEqual([
      [1, -32603],
      [2, -32603],
    ]);
    expect(both[1]!.error!.message).toMatch(/the engine's gateway did not take the request/);
    expect(posts).toBe(2);
    bridge.stdin.end();
    expect(await ended).toBe(0);
    expect(stderr).not.toMatch(/\n\s+at |RangeError|Maximum call stack/);
  });
});
