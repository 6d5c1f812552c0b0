import { MemoryEventStore } from '../../../adapters/event-store';
import { HarnessRuntime, RuntimeManager, toolActionRequestFor, type AdmitResult, type InvocationToolActionPort } from '../../../domain/application';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, steppingClock } from './support/world';

/**
 * SPEC.md section 5, rule 9: an admission is refused with `crossing_policy_installed` when a
 * participant-crossing policy "is installed in the engine". The rule is judged when each admission
 * arrives: every port reads the manager's switch then, so a policy installed while an invocation is
 * open refuses that invocation's next admission.
 */

const requestFor = (port: InvocationToolActionPort, toolCallId: string) => toolActionRequestFor(port, toolCallId, PORTAL_CLIENT);

describe('a crossing policy installed while an invocation is open', () => {
  it('refuses the open invocation’s next admission with crossing_policy_installed', async () => {
    const answers: AdmitResult[] = [];
    let manager: RuntimeManager;
    const runtime = new HarnessRuntime(async (request, _snapshot, port) => {
      answers.push(await port!.admit(requestFor(port!, 'before')));
      manager.setCrossingPolicyInstalled(true);
      answers.push(await port!.admit(requestFor(port!, 'after')));
      return probeResult(request, []);
    });
    manager = new RuntimeManager({
      compiled: compiledScenario(),
      manifest: manifest(),
      runtime,
      store: new MemoryEventStore(),
      episodeId: 'episode-1',
      clock: steppingClock(),
    });
    await manager.start();
    await manager.advance(1);
    expect(answers.map((a) => (a.admitted ? 'admitted' : a.refusal))).toEqual(['admitted', 'crossing_policy_installed']);
  });
});
