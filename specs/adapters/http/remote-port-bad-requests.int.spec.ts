import { RemotePortServer } from '../../../adapters/http/remote-port-server';

/** Requests no harness should send: each gets the 4xx it means, never a 500. */
describe('the remote port answers a malformed request as the caller\'s error', () => {
  const server = new RemotePortServer();
  beforeAll(() => server.start());
  afterAll(() => server.close());

  const statusOf = async (path: string): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${server.url}${path}`, { headers: { authorization: 'Bearer some-secret' } });
    return { status: response.status, body: await response.json() };
  };

  it('answers 400 to an invocation id that is not valid percent-encoding', async () => {
    for (const path of ['/invocations/%E0%A4%A/values', '/invocations/%/values', '/invocations/%ZZ/cancel']) {
      expect(await statusOf(path)).toEqual({ status: 400, body: expect.objectContaining({ error: 'path_invalid' }) });
    }
  });

  it('answers 404 to a path it does not serve, and 401 to a well-formed id with an unknown secret', async () => {
    expect((await statusOf('/elsewhere')).status).toBe(404);
    expect(await statusOf('/invocations/x%3Ay/values')).toEqual({ status: 401, body: expect.objectContaining({ error: 'secret_invalid' }) });
  });
});
