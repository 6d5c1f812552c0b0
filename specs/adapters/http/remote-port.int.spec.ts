import { MemoryEventStore } from '../../../adapters/event-store';
import {
  HarnessRuntime,
  RuntimeManager,
  type AttachedPort,
  type InvocationToolActionPort,
  type RemoteAccess,
  toolActionRequestFor,
} from '../../../domain/application';
import { callTool } from '../../../examples/harness/call-tool';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, participantOf, POLICY, steppingClock } from '../../domain/application/support/world';
import { RemoteInvocationPort, RemotePortRefused, RemotePortServer } from '../../../adapters/http';

/** The port over HTTP on 127.0.0.1: one secret per invocation, anyone else refused. */

const FIRST = `${POLICY}:${PARTICIPANT}:1`;
const SECOND = `${POLICY}:${participantOf('agent-1')}:1`;

type Answer = { status: number; body: { error?: string } };

const post = async (access: RemoteAccess, invocationId: string, authorization: string | undefined): Promise<Answer> => {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await fetch(`${access.url}/invocations/${encodeURIComponent(invocationId)}/cancel`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ action_instance_id: `${invocationId}:tool=1` }),
  });
  return { status: response.status, body: (await response.json()) as { error?: string } };
};

describe('the remote port', () => {
  const server = new RemotePortServer();
  const accesses = new Map<string, RemoteAccess>();
  const answers = new Map<string, Answer | string>();
  let manager: RuntimeManager;
  /** The first harness's connected port, kept past its invocation's close. */
  let connectedAfterClose: RemoteInvocationPort | undefined;

  class RemoteHarnessRuntime extends HarnessRuntime {
    override attachInvocationToolActions(port: InvocationToolActionPort): void {
      const remote = (port as AttachedPort).remote;
      if (remote !== undefined) accesses.set(port.invocation_action_instance_id, remote);
      // The in-process port is not handed on: the harness reaches its invocation over HTTP only.
    }
  }

  let bothAttached: () => void;
  const attached = new Promise<void>((resolve) => (bothAttached = resolve));
  // The second invocation stays open until the first has tried its secret.
  let firstChecked: () => void;
  const checked = new Promise<void>((resolve) => (firstChecked = resolve));

  beforeAll(async () => {
    await server.start();
    manager = new RuntimeManager({
      compiled: compiledScenario({ extraAgents: 1 }),
      manifest: manifest(),
      runtime: new RemoteHarnessRuntime(async (request) => {
        if (accesses.size === 2) bothAttached();
        await attached;
        const mine = accesses.get(request.action_instance_id)!;
        const remote = await RemoteInvocationPort.connect(mine);
        const outcome = await callTool(remote, 'call-1', PORTAL_CLIENT, async () => true);
        answers.set(`${request.action_instance_id}:call`, outcome.kind);
        // The same call again over HTTP: admitted as before, not dispatched twice.
        answers.set(`${request.action_instance_id}:replay`, JSON.stringify(await remote.admitAndDispatch(toolActionRequestFor(remote, 'call-1', PORTAL_CLIENT))));
        if (request.action_instance_id === FIRST) {
          connectedAfterClose = remote;
          const other = accesses.get(SECOND)!;
          answers.set('missing', await post(mine, FIRST, undefined));
          answers.set('wrong', await post(mine, FIRST, 'Bearer not-the-secret'));
          answers.set('foreign', await post(mine, FIRST, `Bearer ${other.secret}`));
          answers.set('own', await post(mine, FIRST, `Bearer ${mine.secret}`));
          firstChecked();
        } else {
          await checked;
        }
        return probeResult(request, []);
      }),
      store: new MemoryEventStore(),
      remotePorts: server,
      episodeId: 'episode-1',
      clock: steppingClock(),
    });
    await manager.start();
    await manager.advance(1);
  });

  afterAll(async () => {
    await manager.close();
    await server.close();
  });

  it('serves each harness its own invocation over HTTP', async () => {
    expect(answers.get(`${FIRST}:call`)).toBe('completed');
    expect(answers.get(`${SECOND}:call`)).toBe('completed');
    expect(await manager.getOperation(`${FIRST}:tool=1`)).toMatchObject({ settlement: 'completed' });
  });

  it('serves admit-and-dispatch: a replayed call is admitted as before and not dispatched again', () => {
    expect(JSON.parse(answers.get(`${FIRST}:replay`) as string)).toEqual({
      admitted: true,
      action_instance_id: `${FIRST}:tool=1`,
      accepted: false,
      refusal: 'state_conflict',
      message: expect.any(String),
    });
  });

  it('refuses a missing secret (401), a wrong one (401) and the secret of another invocation (403)', () => {
    expect(answers.get('missing')).toEqual({ status: 401, body: expect.objectContaining({ error: 'secret_missing' }) });
    expect(answers.get('wrong')).toEqual({ status: 401, body: expect.objectContaining({ error: 'secret_invalid' }) });
    expect(answers.get('foreign')).toEqual({ status: 403, body: expect.objectContaining({ error: 'secret_foreign' }) });
    // The right secret reaches the port, which answers with a domain refusal as a value.
    expect(answers.get('own')).toEqual({ status: 200, body: expect.objectContaining({ accepted: false, refusal: 'state_conflict' }) });
  });

  it('kills the secret when the invocation closes: its holder is answered invocation_closed, never the port', async () => {
    const mine = accesses.get(FIRST)!;
    expect(await post(mine, FIRST, `Bearer ${mine.secret}`)).toEqual({
      status: 200,
      body: { accepted: false, refusal: 'invocation_closed', message: expect.any(String) },
    });
    expect(connectedAfterClose).toBeDefined();
    const late = await callTool(connectedAfterClose!, 'call-late', PORTAL_CLIENT, async () => {
      throw new Error('a refused call must never run its tool');
    });
    expect(late).toEqual({ kind: 'refused', refusal: 'invocation_closed' });
    // A replay of a call the invocation admitted is not answered as admitted once it closed.
    expect(await connectedAfterClose!.admitAndDispatch(toolActionRequestFor(connectedAfterClose!, 'call-1', PORTAL_CLIENT))).toEqual({
      admitted: false,
      refusal: 'invocation_closed',
      message: expect.any(String),
    });
    expect(await manager.getOperation(`${FIRST}:tool=2`)).toBeUndefined();
    await expect(RemoteInvocationPort.connect(mine)).rejects.toMatchObject({ status: 410, error: 'invocation_closed' });
    await expect(RemoteInvocationPort.connect(mine)).rejects.toBeInstanceOf(RemotePortRefused);
  });
});
