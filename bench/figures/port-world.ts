import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarnessRuntime, RuntimeManager, toolActionRequestFor, type Harness, type InvocationToolActionPort } from '../../domain/application';
import type { EventStore } from '../../adapters/event-store';
import { ChainedEventStore, SEAL_EVERY } from '../../adapters/event-store/chained-event-store';
import { PORTAL_CLIENT } from '../../examples/harness/scripted-harness';
import { benchManifest, benchScenario, openBenchStore, steppingClock } from '../support/world';
import { elapsedMs } from '../support/stats';

/**
 * A runtime manager over a fresh SQLite store in a temp dir, running `harness` for `agents`
 * participants; `chained` puts the hash chain and its seals over the store, as every engine writer has.
 */
export interface PortWorld {
  readonly dir: string;
  readonly store: EventStore;
  readonly manager: RuntimeManager;
  dispose(): Promise<void>;
}

export interface PortWorldOptions {
  readonly chained?: boolean;
  /** What the manager appends through (the store is still the one closed on dispose). */
  readonly wrapStore?: (store: EventStore) => EventStore;
}

export const portWorld = async (name: string, agents: number, harness: Harness, options: PortWorldOptions = {}): Promise<PortWorld> => {
  const dir = mkdtempSync(join(tmpdir(), `raes-bench-${name}-`));
  const plain = openBenchStore(join(dir, 'events.sqlite'));
  const store = options.chained === true ? new ChainedEventStore(plain, SEAL_EVERY, true) : plain;
  const manager = new RuntimeManager({
    compiled: benchScenario({ agents }),
    manifest: benchManifest(),
    runtime: new HarnessRuntime(harness),
    store: options.wrapStore === undefined ? store : options.wrapStore(store),
    episodeId: 'episode-bench',
    clock: steppingClock(),
  });
  await manager.start();
  return {
    dir,
    store,
    manager,
    async dispose() {
      await manager.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** The tool calls the claim allows in one invocation. */
export const CALLS_PER_INVOCATION = 16;

export const admitRequest = (port: InvocationToolActionPort, toolCallId: string) =>
  toolActionRequestFor(port, toolCallId, PORTAL_CLIENT);

export const succeededResult = (port: InvocationToolActionPort, actionInstanceId: string) => ({
  status: 'succeeded' as const,
  participant_address: port.participant_address,
  episode_id: port.episode_id,
  action_instance_id: actionInstanceId,
  action_contract_address: PORTAL_CLIENT.action_contract_address,
  observation_point: port.observation_point,
  evidence_refs: ['content.participant-observation'],
});

export const outerResult = (request: { action_instance_id: string; participant_address: string; episode_id: string; action_contract_address: string; observation_point: string }) => ({
  status: 'succeeded' as const,
  participant_address: request.participant_address,
  episode_id: request.episode_id,
  action_instance_id: request.action_instance_id,
  action_contract_address: request.action_contract_address,
  observation_point: request.observation_point,
  evidence_refs: ['content.participant-observation'],
});

/** Admits, then dispatches one call: the two port calls of docs/rules.md, port (two durable appends); throws on any refusal. */
export const admitThenDispatch = async (port: InvocationToolActionPort, toolCallId: string): Promise<string> => {
  const admitted = await port.admit(admitRequest(port, toolCallId));
  if (!admitted.admitted) throw new Error(`admission refused: ${admitted.refusal}`);
  const dispatched = await port.dispatch(admitted.action_instance_id);
  if (!dispatched.accepted) throw new Error(`dispatch refused: ${dispatched.refusal}`);
  return admitted.action_instance_id;
};

/** Admits and dispatches one call with admitAndDispatch (one decision, one durable append); throws on any refusal. */
export const admitAndDispatch = async (port: InvocationToolActionPort, toolCallId: string): Promise<string> => {
  const answer = await port.admitAndDispatch(admitRequest(port, toolCallId));
  if (!answer.admitted) throw new Error(`admission refused: ${answer.refusal}`);
  if (!answer.accepted) throw new Error(`dispatch refused: ${answer.refusal}`);
  return answer.action_instance_id;
};

/**
 * The figures' invocation: CALLS_PER_INVOCATION tool calls one after another through its port
 * (admitAndDispatch, then complete); `onAction` gets each call's latency in ms.
 */
export const toolCallsHarness =
  (onAction: (ms: number) => void): Harness =>
  async (request, _snapshot, port) => {
    if (port === undefined) throw new Error('no port was attached');
    for (let call = 1; call <= CALLS_PER_INVOCATION; call++) {
      const start = process.hrtime.bigint();
      const id = await admitAndDispatch(port, `call-${call}`);
      await completeCall(port, id);
      onAction(elapsedMs(start));
    }
    return outerResult(request);
  };

export const completeCall = async (port: InvocationToolActionPort, actionInstanceId: string): Promise<void> => {
  const completed = await port.complete(actionInstanceId, succeededResult(port, actionInstanceId));
  if (!completed.accepted) throw new Error(`completion refused: ${completed.refusal}`);
};
