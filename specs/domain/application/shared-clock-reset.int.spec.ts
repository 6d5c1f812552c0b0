import { MemoryEventStore } from '../../../adapters/event-store';
import { HarnessRuntime, RuntimeManager, toolActionRequestFor, type AdmitResult, type InvocationToolActionPort } from '../../../domain/application';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from './support/world';

/**
 * SPEC.md section 1: a shared-clock reset adds 1 to every policy's execution generation. Invocations
 * opened after `resetSharedClock()` carry the new generation, and their live port refuses a harness
 * request that still carries the old one with `stale_generation`.
 */

const requestFor = (port: InvocationToolActionPort, toolCallId: string, generation: number) => ({
  ...toolActionRequestFor(port, toolCallId, PORTAL_CLIENT),
  execution_generation: generation,
});

describe('a shared-clock reset', () => {
  it('adds 1 to the execution generation: a request with the old one is refused stale_generation', async () => {
    const generations: number[] = [];
    const answers: AdmitResult[] = [];
    const runtime = new HarnessRuntime(async (request, _snapshot, port) => {
      generations.push(port!.execution_generation);
      if (generations.length === 2) {
        answers.push(await port!.admit(requestFor(port!, 'old-generation', generations[0]!)));
        answers.push(await port!.admit(requestFor(port!, 'new-generation', port!.execution_generation)));
      }
      return probeResult(request, []);
    });
    const manager = new RuntimeManager({
      compiled: compiledScenario({ failurePolicy: 'continue' }),
      manifest: manifest(),
      runtime,
      store: new MemoryEventStore(),
      episodeId: 'episode-1',
      clock: steppingClock(),
    });
    await manager.start();
    await manager.advance(1);
    expect(await manager.resetSharedClock()).toEqual({ ok: true });
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)?.executionGeneration).toBe(1);
    await manager.advance(2);
    expect(generations).toEqual([0, 1]);
    expect(answers.map((a) => (a.admitted ? 'admitted' : a.refusal))).toEqual(['stale_generation', 'admitted']);
  });
});
