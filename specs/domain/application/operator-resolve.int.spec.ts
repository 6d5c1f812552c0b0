import { MemoryEventStore } from '../../../adapters/event-store';
import { HarnessRuntime, RuntimeManager } from '../../../domain/application';
import { probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from './support/world';

/** The engine's own resolve, as an embedding program calls it: what it refuses before reading anything. */
describe('RuntimeManager.resolve', () => {
  const managerOver = async (store: MemoryEventStore): Promise<RuntimeManager> => {
    const manager = new RuntimeManager({
      compiled: compiledScenario(),
      manifest: manifest(),
      runtime: new HarnessRuntime(async (request) => probeResult(request, [])),
      store,
      episodeId: 'episode-1',
      clock: steppingClock(),
    });
    await manager.start();
    return manager;
  };

  it('refuses a blank evidence ref and a tool action of an invocation the episode never had, writing nothing', async () => {
    const store = new MemoryEventStore();
    const manager = await managerOver(store);
    const action = `${POLICY}:${PARTICIPANT}:7:tool=1`;
    expect(await manager.resolve(action, 'absent', '  ')).toMatchObject({ ok: false, code: 'evidence_missing' });
    expect(await manager.resolve(action, 'absent', 'ticket-42')).toEqual({
      ok: false,
      code: 'action_unknown',
      message: `no invocation ${POLICY}:${PARTICIPANT}:7 in episode episode-1: \`raes-tools audit\` lists the episode's invocations`,
    });
    const read = await store.readAll();
    if (read.kind !== 'read') throw new Error(read.reason);
    expect(read.events).toEqual([]);
    await manager.close();
  });
});
