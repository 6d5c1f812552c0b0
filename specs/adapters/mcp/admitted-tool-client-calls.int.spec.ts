import { connectInMemory, connectStdio, type StdioConnection } from '../../../examples/mcp/connect';
import { FIRST_INVOCATION, GOOD_LOGIN, openPortalWorld, PORTAL_MAPPING, textOf, type PortalWorld } from './support/portal-world';

/** Identity of tool calls, aborts, refused outcomes and a lost connection, with the real runtime. */

const ACTION = `${FIRST_INVOCATION}:tool=1`;

describe('AdmittedToolClient calls', () => {
  jest.setTimeout(30_000);
  let world: PortalWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it('records the caller-chosen tool_call_id, and generates distinct ones otherwise', async () => {
    world = await openPortalWorld({
      connect: connectInMemory,
      script: () => [
        { name: 'probe_login', arguments: GOOD_LOGIN, tool_call_id: 'model-call-42' },
        { name: 'probe_login', arguments: GOOD_LOGIN },
        { name: 'probe_login', arguments: GOOD_LOGIN },
      ],
    });
    await world.manager.advance(1);

    const records = await world.toolActions(FIRST_INVOCATION);
    expect(records.map((r) => r.toolCallId)[0]).toBe('model-call-42');
    const generated = records.slice(1).map((r) => r.toolCallId);
    expect(generated).toEqual(world.calls.slice(1).map((c) => c.tool_call_id));
    expect(new Set(generated).size).toBe(2);
    // JSON-RPC ids are small integers restarting per connection; a generated id is not one of them.
    for (const id of generated) expect(id).not.toMatch(/^\d+$/);
  });

  it('offers the model only the server tools the mapping declares', async () => {
    let listed: string[] = [];
    world = await openPortalWorld({
      connect: connectInMemory,
      beforeScript: async (tools) => {
        listed = (await tools.listTools()).tools.map((tool) => tool.name);
      },
      script: () => [],
    });
    await world.manager.advance(1);

    expect((await world.connection.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['call_count', 'probe_login']);
    expect(listed).toEqual(['probe_login']);
  });

  it('never runs a tool twice for a repeated tool_call_id', async () => {
    world = await openPortalWorld({
      connect: connectInMemory,
      script: () => [
        { name: 'probe_login', arguments: GOOD_LOGIN, tool_call_id: 'same-call' },
        { name: 'probe_login', arguments: GOOD_LOGIN, tool_call_id: 'same-call' },
      ],
    });
    await world.manager.advance(1);

    expect(world.calls[0]?.outcome).toBe('succeeded');
    expect(world.calls[1]).toMatchObject({ outcome: 'refused', refusal: 'state_conflict', action_instance_id: ACTION });
    expect(world.calls[1]?.result.isError).toBe(true);
    expect(await world.connection.probeCalls()).toBe(1);
    expect(await world.toolActions(FIRST_INVOCATION)).toHaveLength(1);
  });

  it('reports an aborted call unknown: it settles indeterminate', async () => {
    world = await openPortalWorld({
      connect: connectInMemory,
      slowCall: { call: 1, delayMs: 1_000 },
      script: () => [{ name: 'probe_login', arguments: GOOD_LOGIN, abortAfterMs: 100 }],
    });
    await world.manager.advance(1);

    expect(world.calls[0]).toMatchObject({ outcome: 'unknown', reason: 'aborted' });
    expect(await world.manager.getOperation(ACTION)).toMatchObject({ state: 'settled', settlement: 'indeterminate' });
  });

  it('reports unknown when the outcome it completes with is refused (undeclared evidence)', async () => {
    const undeclared = { probe_login: { ...PORTAL_MAPPING.probe_login!, evidence_refs: ['content.operator-notes'] } };
    world = await openPortalWorld({
      connect: connectInMemory,
      mapping: undeclared,
      script: () => [{ name: 'probe_login', arguments: GOOD_LOGIN }],
    });
    await world.manager.advance(1);

    const [call] = world.calls;
    expect(call).toMatchObject({ outcome: 'unknown', reason: 'outcome_refused:outcome_invalid' });
    expect(textOf(call!)).toContain('login accepted'); // the tool ran; the model gets its answer
    expect(await world.manager.getOperation(ACTION)).toMatchObject({ state: 'settled', settlement: 'indeterminate' });
  });

  it('reports a call unknown when the stdio server dies under it', async () => {
    world = await openPortalWorld({
      connect: connectStdio,
      slowCall: { call: 1, delayMs: 5_000 },
      script: () => [
        {
          name: 'probe_login',
          arguments: GOOD_LOGIN,
          whileRunning: (connection) => {
            const pid = (connection as StdioConnection).serverPid();
            if (pid !== null) process.kill(pid, 'SIGKILL');
          },
        },
      ],
    });
    await world.manager.advance(1);

    expect(world.calls[0]).toMatchObject({ outcome: 'unknown', reason: 'connection_lost' });
    expect(await world.manager.getOperation(ACTION)).toMatchObject({ state: 'settled', settlement: 'indeterminate' });
    expect(world.portal.loginRequests()).toBe(0);
  });
});
