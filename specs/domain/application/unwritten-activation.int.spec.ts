import { MemoryEventStore, type AppendResult } from '../../../adapters/event-store';
import { HarnessRuntime, RuntimeManager, type RuntimeProgress } from '../../../domain/application';
import { invocationStream } from '../../../domain/streams';
import { probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from './support/world';

/**
 * When the store cannot record that dispatch of an invocation began (InvocationActivated), its port
 * would refuse every call with invocation_inactive: admitAction is not called, the invocation closes
 * as if it threw, its attempt is consumed, and progress reports the storage failure.
 */

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;

class UnwritableActivation extends MemoryEventStore {
  override async append(...args: Parameters<MemoryEventStore['append']>): Promise<AppendResult> {
    const [, events] = args;
    if (events.some((event) => event.type === 'InvocationActivated')) return { kind: 'storage_failure', reason: 'the disk is full' };
    return super.append(...args);
  }
}

describe('an invocation whose activation the store could not write', () => {
  it('never runs its harness, closes as threw and consumes the attempt', async () => {
    const store = new UnwritableActivation();
    const progress: RuntimeProgress[] = [];
    let harnessCalls = 0;
    const manager = new RuntimeManager({
      compiled: compiledScenario({ failurePolicy: 'continue' }),
      manifest: manifest(),
      runtime: new HarnessRuntime(async (request) => {
        harnessCalls++;
        return probeResult(request, []);
      }),
      store,
      episodeId: 'episode-1',
      clock: steppingClock(),
      onProgress: (p) => progress.push(p),
    });
    await manager.start();
    await manager.advance(1);
    expect(harnessCalls).toBe(0);
    expect(progress.some((p) => p.kind === 'storage_failure' && p.reason.includes(INVOCATION))).toBe(true);
    expect(progress).toContainEqual(expect.objectContaining({ kind: 'invocation_closed', invocation_action_instance_id: INVOCATION, outcome: 'consumed' }));
    const read = await store.readStream(invocationStream('episode-1', INVOCATION));
    expect(read.kind === 'read' && read.events.map((e) => e.type)).toEqual(['InvocationOpened', 'InvocationClosed']);
    expect(read.kind === 'read' && read.events[1]?.data).toMatchObject({ outcome: 'threw', recovered: false });
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({ attemptsStarted: 1, status: 'running' });
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)?.inFlight.size).toBe(0);
  });
});
