import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { MemoryEventStore } from '../../../adapters/event-store';
import {
  HarnessRuntime,
  PlainRuntime,
  RegistrationRefused,
  RuntimeManager,
  toolActionRequestFor,
  type AdmitResult,
  type Harness,
  type InvocationToolActionPort,
  type OperationStatus,
  type ParticipantRuntime,
  type SettleReceipt,
} from '../../../domain/application';
import { invocationStream, schedulerStream } from '../../../domain/streams';
import { callTool, ToolTimeout } from '../../../examples/harness/call-tool';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from './support/world';

/** The port's lifecycle around admitAction, the claim, the crossing-policy switch and operations. */

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;

const managerWith = (runtime: ParticipantRuntime, options: { claim?: boolean; store?: MemoryEventStore } = {}) =>
  new RuntimeManager({
    compiled: compiledScenario(),
    manifest: manifest({ claim: options.claim ?? true }),
    runtime,
    store: options.store ?? new MemoryEventStore(),
    episodeId: 'episode-1',
    clock: steppingClock(),
  });

const requestFor = (port: InvocationToolActionPort, toolCallId: string) => toolActionRequestFor(port, toolCallId, PORTAL_CLIENT);

const eventTypes = async (store: MemoryEventStore, stream: string): Promise<string[]> => {
  const read = await store.readStream(stream);
  if (read.kind !== 'read') throw new Error(read.reason);
  return read.events.map((e) => e.type);
};

describe('the port around admitAction', () => {
  it('refuses calls made during attachment with invocation_inactive and records nothing of them', async () => {
    const store = new MemoryEventStore();
    let duringAttach: Promise<AdmitResult> | undefined;
    class EagerRuntime extends HarnessRuntime {
      override attachInvocationToolActions(port: InvocationToolActionPort): void {
        duringAttach = port.admit(requestFor(port, 'too-early'));
        super.attachInvocationToolActions(port);
      }
    }
    const manager = managerWith(new EagerRuntime(async (request) => probeResult(request, [])), { store });
    await manager.start();
    await manager.advance(1);
    expect(await duringAttach).toMatchObject({ admitted: false, refusal: 'invocation_inactive' });
    expect(await eventTypes(store, invocationStream('episode-1', INVOCATION))).toEqual(['InvocationOpened', 'InvocationActivated', 'InvocationClosed']);
  });

  it('answers every call after admitAction returned with invocation_closed', async () => {
    let kept: InvocationToolActionPort | undefined;
    let admittedId = '';
    const manager = managerWith(
      new HarnessRuntime(async (request, _snapshot, port) => {
        kept = port;
        const admitted = await port!.admit(requestFor(port!, 'call-1'));
        if (admitted.admitted) admittedId = admitted.action_instance_id;
        return probeResult(request, []);
      }),
    );
    await manager.start();
    await manager.advance(1);
    const port = kept!;
    const closed = { refusal: 'invocation_closed' };
    expect(await port.admit(requestFor(port, 'call-2'))).toMatchObject({ admitted: false, ...closed });
    const receipts: SettleReceipt[] = [
      await port.dispatch(admittedId),
      await port.cancel(admittedId),
      await port.reportUnknown(admittedId, 'late'),
    ];
    for (const receipt of receipts) expect(receipt).toMatchObject({ accepted: false, ...closed });
    // The undispatched action settled withheld when the invocation returned.
    expect(await manager.getOperation(admittedId)).toMatchObject({ state: 'settled', settlement: 'withheld' });
  });

  it('commits the tool history of a throwing invocation and consumes its attempt', async () => {
    const store = new MemoryEventStore();
    const manager = managerWith(
      new HarnessRuntime(async (_request, _snapshot, port) => {
        await callTool(port!, 'call-1', PORTAL_CLIENT, async () => true);
        await callTool(port!, 'call-2', PORTAL_CLIENT, async () => {
          throw new ToolTimeout('portal-client');
        });
        throw new Error('the agent loop crashed');
      }),
      { store },
    );
    await manager.start();
    await manager.advance(1);
    const types = await eventTypes(store, invocationStream('episode-1', INVOCATION));
    expect(types.filter((t) => t === 'ToolActionSettled')).toHaveLength(2);
    expect(types[types.length - 1]).toBe('InvocationClosed');
    expect(await manager.getOperation(INVOCATION)).toMatchObject({ state: 'settled', settlement: 'threw', attempt_outcome: 'consumed' });
    expect(await manager.getOperation(`${INVOCATION}:tool=1`)).toMatchObject({ settlement: 'completed', parent_operation_id: INVOCATION });
    const scheduler = await store.readStream(schedulerStream('episode-1', POLICY, PARTICIPANT));
    const finished = scheduler.kind === 'read' ? scheduler.events.find((e) => e.type === 'AttemptFinished') : undefined;
    expect(finished?.data).toMatchObject({ outcome: 'consumed', indeterminate_action_ids: [`${INVOCATION}:tool=2`] });
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)?.status).toBe('stopped');
  });

  it('closes an invocation that returned an invalid result as invalid_result: tool history commits, the attempt is consumed', async () => {
    const store = new MemoryEventStore();
    const manager = managerWith(
      new HarnessRuntime(async (request, _snapshot, port) => {
        await callTool(port!, 'call-1', PORTAL_CLIENT, async () => true);
        return { ...probeResult(request, []), observation_point: 'time.clock.elsewhere@segment=0,tick=9' };
      }),
      { store },
    );
    await manager.start();
    await manager.advance(1);
    const outer = await manager.getOperation(INVOCATION);
    expect(outer).toMatchObject({ state: 'settled', settlement: 'invalid_result', attempt_outcome: 'consumed' });
    expect(outer?.diagnostics?.[0]?.reason).toMatch(/observation_point/);
    expect(await manager.getOperation(`${INVOCATION}:tool=1`)).toMatchObject({ settlement: 'completed' });
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({ status: 'stopped', stoppedBy: { reason: 'failure_policy' } });
  });

  it('refuses admissions with crossing_policy_installed once a crossing policy is installed', async () => {
    const answers: AdmitResult[] = [];
    const harness: Harness = async (request, _snapshot, port) => {
      answers.push(await port!.admit(requestFor(port!, 'call-1')));
      return probeResult(request, []);
    };
    const manager = new RuntimeManager({
      compiled: compiledScenario({ failurePolicy: 'continue' }),
      manifest: manifest(),
      runtime: new HarnessRuntime(harness),
      store: new MemoryEventStore(),
      episodeId: 'episode-1',
      clock: steppingClock(),
    });
    await manager.start();
    await manager.advance(1);
    manager.setCrossingPolicyInstalled(true);
    await manager.advance(2);
    expect(answers.map((a) => (a.admitted ? 'admitted' : a.refusal))).toEqual(['admitted', 'crossing_policy_installed']);
  });
});

describe('the claim', () => {
  it('attaches no port without the claim, and the plain execution still counts its attempts', async () => {
    const store = new MemoryEventStore();
    const seen: (InvocationToolActionPort | undefined)[] = [];
    const runtime = new HarnessRuntime(async (request, _snapshot, port) => {
      seen.push(port);
      return probeResult(request, []);
    });
    const attach = jest.spyOn(runtime, 'attachInvocationToolActions');
    const manager = managerWith(runtime, { claim: false, store });
    expect(manager.attachesPorts).toBe(false);
    await manager.start();
    await manager.advance(1);
    expect(seen).toEqual([undefined]);
    expect(attach).not.toHaveBeenCalled();
    expect(await eventTypes(store, invocationStream('episode-1', INVOCATION))).toEqual([]);
    expect(await manager.getOperation(INVOCATION)).toMatchObject({
      state: 'settled',
      attempt_outcome: 'failed',
      episode_id: 'episode-1',
      parent_operation_id: null,
    });
  });

  it('refuses a claimed registration of a runtime without attachInvocationToolActions, naming the method', () => {
    const plain = new PlainRuntime(async () => ({}));
    expect(() => managerWith(plain)).toThrow(RegistrationRefused);
    expect(() => managerWith(plain)).toThrow(/attachInvocationToolActions/);
    expect(() => managerWith(plain, { claim: false })).not.toThrow();
  });
});

describe('operations', () => {
  const schema = JSON.parse(
    readFileSync(resolve(__dirname, '../../../schemas/raes/schemas/operation-status-v1.json'), 'utf8'),
  ) as Record<string, unknown>;
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  const baseFields = (status: OperationStatus) => {
    const {
      operation_kind: _kind,
      parent_operation_id: _parent,
      settlement: _settlement,
      participant_address: _participant,
      episode_id: _episode,
      action_contract_address: _contract,
      tool_call_id: _toolCall,
      admission_ordinal: _ordinal,
      attempt_outcome: _outcome,
      resolution: _resolution,
      ...base
    } = status;
    return base;
  };

  it('shows each tool action as a child of the outer operation at every moment, in the RAES operation shape', async () => {
    const seen: Record<string, OperationStatus | undefined> = {};
    let manager: RuntimeManager;
    const runtime = new HarnessRuntime(async (request, _snapshot, port) => {
      const admitted = await port!.admit(requestFor(port!, 'call-1'));
      if (!admitted.admitted) throw new Error('not admitted');
      const id = admitted.action_instance_id;
      seen.outerRunning = await manager.getOperation(INVOCATION);
      seen.admitted = await manager.getOperation(id);
      await port!.dispatch(id);
      seen.dispatched = await manager.getOperation(id);
      await port!.reportUnknown(id, 'timeout');
      seen.settled = await manager.getOperation(id);
      return probeResult(request, []);
    });
    manager = managerWith(runtime);
    await manager.start();
    await manager.advance(1);
    seen.outerDone = await manager.getOperation(INVOCATION);
    await manager.resolve(`${INVOCATION}:tool=1`, 'happened', 'content.participant-observation');
    seen.resolved = await manager.getOperation(`${INVOCATION}:tool=1`);

    expect(seen.outerRunning).toMatchObject({ operation_id: INVOCATION, state: 'dispatched', parent_operation_id: null, settlement: null });
    expect(seen.admitted).toMatchObject({ state: 'admitted', parent_operation_id: INVOCATION, settlement: null });
    expect(seen.dispatched).toMatchObject({ state: 'dispatched', settlement: null });
    expect(seen.settled).toMatchObject({ state: 'settled', settlement: 'indeterminate', diagnostics: [{ reason: 'timeout' }] });
    expect(seen.outerDone).toMatchObject({
      state: 'settled',
      settlement: 'returned',
      attempt_outcome: 'failed',
      domain: 'participant-invocation-tool-actions/v1',
    });
    expect(seen.resolved).toMatchObject({
      state: 'settled',
      settlement: 'indeterminate',
      resolution: { effect: 'happened', evidence_ref: 'content.participant-observation' },
    });
    for (const status of Object.values(seen)) {
      expect(status).toBeDefined();
      expect(validate(baseFields(status!))).toBe(true);
    }
    expect(await manager.getOperation(`${INVOCATION}:tool=9`)).toBeUndefined();
  });
});
