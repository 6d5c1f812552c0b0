import { MemoryEventStore } from '../../../adapters/event-store';
import { PARTICIPANT, POLICY, startedProbeManager } from './support/world';

/** The engine's own resolve, as an embedding program calls it: what it refuses before reading anything. */
describe('RuntimeManager.resolve', () => {
  it('refuses a blank evidence ref and a tool action of an invocation the episode never had, writing nothing', async () => {
    const store = new MemoryEventStore();
    const manager = await startedProbeManager(store);
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
