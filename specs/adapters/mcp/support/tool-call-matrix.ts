import type { ToolActionRecord } from '../../../../domain/invocation';
import type { PortalMcpConnection, PortalMcpConnectionOptions } from '../../../../examples/mcp/connect';
import {
  FIRST_INVOCATION,
  GOOD_LOGIN,
  openPortalWorld,
  PARTICIPANT,
  POLICY,
  PORTAL_MAPPING,
  textOf,
  type PortalWorld,
  type PortalWorldOptions,
} from './portal-world';

/**
 * What issue 7 asks of every transport: an allowed call runs and settles completed, an unmapped or
 * unaffordanced tool never reaches the server, a slow tool past its timeout settles indeterminate and
 * stops the participant's scheduler, and isError settles failed. Run once per transport.
 */

type Connect = (options: PortalMcpConnectionOptions) => Promise<PortalMcpConnection>;

const settlementOf = (record: ToolActionRecord | undefined) =>
  record === undefined || record.phase !== 'settled' ? undefined : record.settlement;

export const toolCallMatrix = (connect: Connect): void => {
  let world: PortalWorld | undefined;
  const open = async (options: Omit<PortalWorldOptions, 'connect'>): Promise<PortalWorld> => {
    world = await openPortalWorld({ connect, ...options });
    return world;
  };
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it('runs an allowed call only after dispatch and settles it completed, succeeded', async () => {
    const w = await open({ script: () => [{ name: 'probe_login', arguments: GOOD_LOGIN }] });
    await w.manager.advance(1);

    const [call] = w.calls;
    expect(call?.outcome).toBe('succeeded');
    expect(textOf(call!)).toContain('login accepted');
    expect(await w.connection.probeCalls()).toBe(1);
    expect(w.portal.loginRequests()).toBe(1);
    const actionId = `${FIRST_INVOCATION}:tool=1`;
    expect(call?.action_instance_id).toBe(actionId);
    expect(await w.manager.getOperation(actionId)).toMatchObject({ state: 'settled', settlement: 'completed' });
    const settlement = settlementOf((await w.toolActions(FIRST_INVOCATION))[0]);
    expect(settlement?.kind === 'completed' && settlement.actionResult.status).toBe('succeeded');
    expect(settlement?.kind === 'completed' && settlement.actionResult.evidence_refs).toEqual(['content.participant-observation']);
  });

  it('refuses an unmapped tool before any call: the server never sees it and nothing is admitted', async () => {
    const w = await open({ mapping: {}, script: () => [{ name: 'probe_login', arguments: GOOD_LOGIN }] });
    await w.manager.advance(1);

    const [call] = w.calls;
    expect(call).toMatchObject({ outcome: 'refused', refusal: 'tool_unmapped' });
    expect(call?.result.isError).toBe(true);
    expect(textOf(call!)).toContain('tool_unmapped');
    expect(await w.connection.probeCalls()).toBe(0);
    expect(w.portal.loginRequests()).toBe(0);
    expect(await w.toolActions(FIRST_INVOCATION)).toHaveLength(0);
  });

  it('refuses a tool mapped to an unbound affordance at admission: the server never sees it', async () => {
    const unaffordanced = {
      probe_login: {
        ...PORTAL_MAPPING.probe_login!,
        tool_affordance_address: 'participant.behavior-specification.participant-behavior.tool-affordance.admin-console',
      },
    };
    const w = await open({ mapping: unaffordanced, script: () => [{ name: 'probe_login', arguments: GOOD_LOGIN }] });
    await w.manager.advance(1);

    const [call] = w.calls;
    expect(call).toMatchObject({ outcome: 'refused', refusal: 'affordance_unbound' });
    expect(call?.result.isError).toBe(true);
    expect(textOf(call!)).toContain('affordance_unbound');
    expect(await w.connection.probeCalls()).toBe(0);
    expect(await w.toolActions(FIRST_INVOCATION)).toHaveLength(0);
  });

  it('settles a slow call past its timeout indeterminate and stops the participant scheduler', async () => {
    const w = await open({
      slowCall: { call: 1, delayMs: 1_000 },
      script: () => [{ name: 'probe_login', arguments: GOOD_LOGIN, timeout: 100 }],
    });
    await w.manager.advance(1);

    const [call] = w.calls;
    expect(call).toMatchObject({ outcome: 'unknown', reason: 'timeout' });
    expect(call?.result.isError).toBe(true);
    const actionId = `${FIRST_INVOCATION}:tool=1`;
    expect(await w.manager.getOperation(actionId)).toMatchObject({ state: 'settled', settlement: 'indeterminate' });
    const scheduler = w.manager.schedulerStatus(POLICY, PARTICIPANT);
    expect(scheduler).toMatchObject({
      status: 'stopped',
      stoppedBy: { reason: 'indeterminate_tool_action', action_instance_id: FIRST_INVOCATION },
    });
    expect([...(scheduler?.unresolved ?? [])]).toEqual([actionId]);

    await w.manager.advance(4); // ticks 1..4: attempt 2 was due at tick 2
    expect(w.progress.filter((p) => p.kind === 'invocation_opened')).toHaveLength(1);
    expect(w.calls).toHaveLength(1);
  });

  it('settles a call whose result is isError completed with status failed', async () => {
    const w = await open({ script: () => [{ name: 'probe_login', arguments: { username: GOOD_LOGIN.username, password: 'wrong' } }] });
    await w.manager.advance(1);

    const [call] = w.calls;
    expect(call?.outcome).toBe('failed');
    expect(call?.result.isError).toBe(true);
    expect(await w.connection.probeCalls()).toBe(1);
    const settlement = settlementOf((await w.toolActions(FIRST_INVOCATION))[0]);
    expect(settlement?.kind).toBe('completed');
    expect(settlement?.kind === 'completed' && settlement.actionResult).toMatchObject({ status: 'failed', failure_class: 'backend_error' });
  });
};
