import { MemoryEventStore } from '../../../adapters/event-store';
import {
  HarnessRuntime,
  RuntimeManager,
  toolActionRequestFor,
  type InvocationToolActionPort,
  type SettleReceipt,
  type ToolCallRefused,
} from '../../../domain/application';
import type { ActionResult } from '../../../domain/invocation';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from './support/world';

/** The refusal listener: every refused port call, with its fixed code, reaches RuntimeManagerOptions.onRefusal. */

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;

const requestFor = (port: InvocationToolActionPort, toolCallId: string) => toolActionRequestFor(port, toolCallId, PORTAL_CLIENT);

const succeeded = (port: InvocationToolActionPort, actionInstanceId: string): ActionResult => ({
  status: 'succeeded',
  participant_address: port.participant_address,
  episode_id: port.episode_id,
  action_instance_id: actionInstanceId,
  action_contract_address: PORTAL_CLIENT.action_contract_address,
  observation_point: port.observation_point,
});

describe('refused port calls reach the refusal listener', () => {
  it('tells each refusal with its port call, code and identities, marks late settlements, and never a message', async () => {
    const refused: ToolCallRefused[] = [];
    let port: InvocationToolActionPort | undefined;
    let leftover = '';
    class EagerRuntime extends HarnessRuntime {
      override attachInvocationToolActions(attached: InvocationToolActionPort): void {
        void attached.admit(requestFor(attached, 'too-early'));
        super.attachInvocationToolActions(attached);
      }
    }
    const manager = new RuntimeManager({
      compiled: compiledScenario(),
      manifest: manifest({ claim: true }),
      runtime: new EagerRuntime(async (request, _snapshot, given) => {
        port = given!;
        const done = await port.admitAndDispatch(requestFor(port, 'done'));
        if (!done.admitted) throw new Error('done was refused');
        await port.complete(done.action_instance_id, succeeded(port, done.action_instance_id));
        expect((await port.complete(done.action_instance_id, succeeded(port, done.action_instance_id))).accepted).toBe(false);
        expect((await port.admit({ not: 'a request' } as never)).admitted).toBe(false);
        expect((await port.dispatch('no-such-action')).accepted).toBe(false);
        const slow = await port.admitAndDispatch(requestFor(port, 'slow'));
        if (!slow.admitted) throw new Error('slow was refused');
        await port.reportUnknown(slow.action_instance_id, 'timed out');
        expect((await port.complete(slow.action_instance_id, succeeded(port, slow.action_instance_id))).accepted).toBe(false);
        const left = await port.admitAndDispatch(requestFor(port, 'left'));
        if (!left.admitted) throw new Error('left was refused');
        leftover = left.action_instance_id;
        return probeResult(request, []);
      }),
      store: new MemoryEventStore(),
      episodeId: 'episode-1',
      clock: steppingClock(),
      onRefusal: (refusal) => refused.push(refusal),
    });
    await manager.start();
    await manager.advance(1);
    const afterClose: SettleReceipt = await port!.complete(leftover, succeeded(port!, leftover));
    expect(afterClose).toMatchObject({ accepted: false, refusal: 'invocation_closed' });
    await manager.close();

    const shown = refused.map(({ at: _at, ...rest }) => rest);
    const of = { episode_id: 'episode-1', invocation_action_instance_id: INVOCATION };
    const tool = PORTAL_CLIENT.tool_affordance_address;
    expect(shown).toEqual([
      { ...of, port_call: 'admit', refusal: 'invocation_inactive', tool_call_id: 'too-early', tool_affordance_address: tool },
      { ...of, port_call: 'complete', refusal: 'state_conflict', action_instance_id: expect.any(String), tool_affordance_address: tool, late_settlement: { action_settlement: 'completed' } },
      { ...of, port_call: 'admit', refusal: 'request_invalid' },
      { ...of, port_call: 'dispatch', refusal: 'action_unknown', action_instance_id: 'no-such-action' },
      { ...of, port_call: 'complete', refusal: 'state_conflict', action_instance_id: expect.any(String), tool_affordance_address: tool, late_settlement: { action_settlement: 'indeterminate' } },
      { ...of, port_call: 'complete', refusal: 'invocation_closed', action_instance_id: leftover, tool_affordance_address: tool, late_settlement: { action_settlement: 'indeterminate' } },
    ]);
    for (const refusal of refused) expect(Number.isNaN(Date.parse(refusal.at))).toBe(false);
    expect(JSON.stringify(refused)).not.toContain('message');
  });

  it('keeps the answer when the listener throws', async () => {
    let answer: SettleReceipt | undefined;
    const manager = new RuntimeManager({
      compiled: compiledScenario(),
      manifest: manifest({ claim: true }),
      runtime: new HarnessRuntime(async (request, _snapshot, port) => {
        answer = await port!.dispatch('no-such-action');
        return probeResult(request, []);
      }),
      store: new MemoryEventStore(),
      episodeId: 'episode-1',
      clock: steppingClock(),
      onRefusal: () => {
        throw new Error('telemetry is down');
      },
    });
    await manager.start();
    await manager.advance(1);
    await manager.close();
    expect(answer).toMatchObject({ accepted: false, refusal: 'action_unknown' });
  });
});
