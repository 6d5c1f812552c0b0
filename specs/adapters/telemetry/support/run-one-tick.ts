import type { EventStore } from '../../../../domain/ports/event-store';
import { HarnessRuntime, RuntimeManager, type Harness } from '../../../../domain/application';
import { compiledScenario, manifest, steppingClock } from '../../../domain/application/support/world';

/** The example scenario's engine (claiming the composition) over `store`, for one tick of `harness`, then closed. */
export const runOneTick = async (store: EventStore, harness: Harness): Promise<void> => {
  const manager = new RuntimeManager({
    compiled: compiledScenario(),
    manifest: manifest({ claim: true }),
    runtime: new HarnessRuntime(harness),
    store,
    episodeId: 'episode-1',
    clock: steppingClock(),
  });
  await manager.start();
  await manager.advance(1);
  await manager.close();
};
