import { MemoryEventStore } from '../../../adapters/event-store';
import { schedulerStream } from '../../../domain/streams';
import { PARTICIPANT, POLICY, startedProbeManager } from './support/world';

/**
 * The shared clock passes over the ticks on which nothing falls due in one step: a scenario whose
 * start tick or cadence is far out (RAES bounds neither) runs as soon as one whose is near.
 */

const FAR = 900_000_000_000;

describe('the shared clock over ticks on which nothing is due', () => {
  it('reaches a start tick far ahead in one advance, and starts each attempt on its own due tick', async () => {
    const store = new MemoryEventStore();
    const manager = await startedProbeManager(store, { startTick: FAR, cadenceTicks: FAR, maxActionAttempts: 3, failurePolicy: 'continue' });
    expect(manager.nextDueTick()).toBe(FAR);
    const started = Date.now();
    await manager.advance(3 * FAR - manager.tick);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(manager.tick).toBe(3 * FAR);
    const read = await store.readStream(schedulerStream('episode-1', POLICY, PARTICIPANT));
    if (read.kind !== 'read') throw new Error(read.reason);
    const ticks = read.events.filter((event) => event.type === 'AttemptStarted').map((event) => (event.data as { tick: number }).tick);
    expect(ticks).toEqual([FAR, 2 * FAR, 3 * FAR]);
    expect(manager.nextDueTick()).toBe(4 * FAR);
    await manager.close();
  });
});
