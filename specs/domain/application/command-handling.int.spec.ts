import { MemoryEventStore, type AppendResult, type EventStore } from '../../../adapters/event-store';
import {
  eventId,
  HarnessRuntime,
  invocationAggregate,
  LocalInvocationPort,
  RuntimeManager,
  type AdmitResult,
} from '../../../domain/application';
import { invocationStream } from '../../../domain/streams';
import { buildAdmissionContext } from '../../../domain/manifest';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from './support/world';

/** The engine's participant-crossing switch, off. */
const NO_CROSSING_POLICY = { installed: false } as const;

/** The generic command handler under the port: serialised calls, retried conflicts, failed writes. */

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;
const AT = '2026-04-11T10:00:00Z';

const portValues = {
  invocation_action_instance_id: INVOCATION,
  participant_address: PARTICIPANT,
  episode_id: 'episode-1',
  participant_implementation_ref: 'participant-agent-runner',
  execution_scope_ref: POLICY,
  execution_generation: 0,
  observation_point: 'time.clock.exercise-clock@segment=0,tick=0',
};

const request = (toolCallId: string) => ({
  tool_call_id: toolCallId,
  invocation_action_instance_id: INVOCATION,
  participant_address: PARTICIPANT,
  episode_id: 'episode-1',
  participant_implementation_ref: 'participant-agent-runner',
  tool_affordance_address: PORTAL_CLIENT.tool_affordance_address,
  action_contract_address: PORTAL_CLIENT.action_contract_address,
  observation_boundary_address: PORTAL_CLIENT.observation_boundary_address,
  target_addresses: PORTAL_CLIENT.target_addresses,
  execution_scope_ref: POLICY,
  execution_generation: 0,
});

/** Opens and activates the invocation through one aggregate; returns it. */
const activeInvocation = async (store: EventStore) => {
  const aggregate = invocationAggregate(store, 'episode-1', INVOCATION);
  await aggregate.handle({
    type: 'OpenInvocation',
    at: AT,
    portValues,
    outerAction: {
      action_contract_address: PORTAL_CLIENT.action_contract_address,
      observation_boundary_address: PORTAL_CLIENT.observation_boundary_address,
      target_addresses: PORTAL_CLIENT.target_addresses,
      actor_provenance: 'participant-implementation:participant-agent-runner@1.0.0',
    },
    admissionContext: buildAdmissionContext(compiledScenario(), manifest(), POLICY, PARTICIPANT),
  });
  await aggregate.handle({ type: 'ActivateInvocation', at: AT });
  return aggregate;
};

/** A store whose appends fail while `failing` is set: the disk is full, the server is gone. */
class FailingWrites extends MemoryEventStore {
  failing = false;
  override async append(...args: Parameters<MemoryEventStore['append']>): Promise<AppendResult> {
    if (this.failing) return { kind: 'storage_failure', reason: 'the disk is full' };
    return super.append(...args);
  }
}

describe('command handling under the port', () => {
  it('serialises concurrent calls on one invocation: each admission gets its own ordinal', async () => {
    const store = new MemoryEventStore();
    const port = new LocalInvocationPort(portValues, await activeInvocation(store), () => new Date(AT), undefined, NO_CROSSING_POLICY);
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((id) => port.admit(request(id))));
    expect(answers.map((a) => (a.admitted ? a.action_instance_id : a.refusal))).toEqual([1, 2, 3, 4].map((n) => `${INVOCATION}:tool=${n}`));
    // A replayed tool_call_id gets the original decision and writes nothing.
    expect(await port.admit(request('c'))).toEqual({ admitted: true, action_instance_id: `${INVOCATION}:tool=3` });
    const read = await store.readStream(invocationStream('episode-1', INVOCATION));
    expect(read.kind === 'read' && read.events.map((e) => e.id)).toEqual(
      read.kind === 'read' ? read.events.map((e) => eventId(invocationStream('episode-1', INVOCATION), e.revision, e.type, e.data)) : [],
    );
    expect(read.kind === 'read' && read.events.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n, 5n]);
  });

  it('re-reads and decides again when another writer appended first', async () => {
    const store = new MemoryEventStore();
    const stale = await activeInvocation(store);
    const other = invocationAggregate(store, 'episode-1', INVOCATION);
    await other.load();
    expect(await other.handle({ type: 'AdmitToolAction', at: AT, request: request('first'), crossingPolicyInstalled: false })).toMatchObject({
      kind: 'decided',
      answer: { kind: 'admitted' },
    });
    const port = new LocalInvocationPort(portValues, stale, () => new Date(AT), undefined, NO_CROSSING_POLICY);
    expect(await port.admit(request('second'))).toEqual({ admitted: true, action_instance_id: `${INVOCATION}:tool=2` });
    // The same tool_call_id the other writer recorded: the original decision, after the re-read.
    expect(await port.admit(request('first'))).toEqual({ admitted: true, action_instance_id: `${INVOCATION}:tool=1` });
  });

  it('refuses with ledger_unavailable when the store cannot retain the call, and records nothing', async () => {
    const store = new FailingWrites();
    const port = new LocalInvocationPort(portValues, await activeInvocation(store), () => new Date(AT), undefined, NO_CROSSING_POLICY);
    store.failing = true;
    const refused: AdmitResult = await port.admit(request('a'));
    expect(refused).toMatchObject({ admitted: false, refusal: 'ledger_unavailable' });
    store.failing = false;
    // The refusal left no trace: the next admission is the first.
    expect(await port.admit(request('a'))).toEqual({ admitted: true, action_instance_id: `${INVOCATION}:tool=1` });
  });
});

/** A store that counts appends, and fails them while `failing` is set. */
class CountingWrites extends FailingWrites {
  appends = 0;
  override async append(...args: Parameters<MemoryEventStore['append']>): Promise<AppendResult> {
    this.appends += 1;
    return super.append(...args);
  }
}

describe('admitAndDispatch on the local port', () => {
  const TOOL_1 = `${INVOCATION}:tool=1`;
  const portOn = async (store: EventStore) =>
    new LocalInvocationPort(portValues, await activeInvocation(store), () => new Date(AT), undefined, NO_CROSSING_POLICY);

  it('admits and dispatches in one append: ToolActionAdmitted then ToolActionDispatched', async () => {
    const store = new CountingWrites();
    const port = await portOn(store);
    const before = store.appends;
    expect(await port.admitAndDispatch(request('a'))).toEqual({ admitted: true, action_instance_id: TOOL_1, accepted: true });
    expect(store.appends - before).toBe(1);
    const read = await store.readStream(invocationStream('episode-1', INVOCATION));
    expect(read.kind === 'read' && read.events.map((e) => e.type)).toEqual([
      'InvocationOpened',
      'InvocationActivated',
      'ToolActionAdmitted',
      'ToolActionDispatched',
    ]);
  });

  it('a replayed tool_call_id: the original admission, and dispatch answers as it would alone', async () => {
    const store = new CountingWrites();
    const port = await portOn(store);
    // Admitted only: the replay dispatches the original action.
    expect(await port.admit(request('a'))).toEqual({ admitted: true, action_instance_id: TOOL_1 });
    expect(await port.admitAndDispatch(request('a'))).toEqual({ admitted: true, action_instance_id: TOOL_1, accepted: true });
    // Dispatched already: admitted, not accepted, nothing written.
    const before = store.appends;
    expect(await port.admitAndDispatch(request('a'))).toEqual({
      admitted: true,
      action_instance_id: TOOL_1,
      accepted: false,
      refusal: 'state_conflict',
      message: expect.any(String),
    });
    expect(store.appends).toBe(before);
  });

  it('a refused admission is refused with admit’s own code', async () => {
    const port = await portOn(new MemoryEventStore());
    const foreign = { ...request('a'), episode_id: 'episode-other' };
    const alone = await port.admit(foreign);
    expect(alone).toMatchObject({ admitted: false, refusal: 'identity_mismatch' });
    expect(await port.admitAndDispatch(foreign)).toEqual(alone);
  });

  it('ledger_unavailable: not admitted when nothing was written; admitted and not dispatched after a replay', async () => {
    const store = new CountingWrites();
    const port = await portOn(store);
    store.failing = true;
    expect(await port.admitAndDispatch(request('a'))).toMatchObject({ admitted: false, refusal: 'ledger_unavailable' });
    store.failing = false;
    expect(await port.admit(request('a'))).toEqual({ admitted: true, action_instance_id: TOOL_1 });
    store.failing = true;
    expect(await port.admitAndDispatch(request('a'))).toMatchObject({
      admitted: true,
      action_instance_id: TOOL_1,
      accepted: false,
      refusal: 'ledger_unavailable',
    });
  });

  it('after the port closed: invocation_closed and not admitted, even for a replayed tool_call_id', async () => {
    const port = await portOn(new MemoryEventStore());
    expect((await port.admitAndDispatch(request('a'))).admitted).toBe(true);
    port.endDispatch();
    expect(await port.admitAndDispatch(request('a'))).toEqual({ admitted: false, refusal: 'invocation_closed', message: expect.any(String) });
  });
});

describe('the wall-paced driver', () => {
  it('advances the shared clock by itself until stopped', async () => {
    const ran: number[] = [];
    const manager = new RuntimeManager({
      compiled: compiledScenario({ failurePolicy: 'continue', cadenceTicks: 1 }),
      manifest: manifest(),
      runtime: new HarnessRuntime(async (request, snapshot) => {
        ran.push(snapshot.tick);
        return probeResult(request, []);
      }),
      store: new MemoryEventStore(),
      episodeId: 'episode-1',
      clock: steppingClock(),
    });
    await manager.start();
    manager.startClock(5);
    while (ran.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    await manager.close();
    const tick = manager.tick;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(manager.tick).toBe(tick);
    expect(ran).toEqual([0, 1, 2]); // max_action_attempts is 3
  });
});
