import { MemoryEventStore } from '../../../adapters/event-store';
import { HarnessRuntime, RuntimeManager } from '../../../domain/application';
import { callTool } from '../../../examples/harness/call-tool';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { errorsOf, validators } from '../../projections/support/schemas';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from './support/world';

/**
 * One operation has one shape: the runtime manager's live getOperation answers like the operations
 * view that `raes-tools operations get` reads (schemas/invocation-operation-status-v1.json).
 */

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;

describe("the runtime manager's getOperation", () => {
  it('answers in the shape of schemas/invocation-operation-status-v1.json, like the operations view', async () => {
    const manager = new RuntimeManager({
      compiled: compiledScenario(),
      manifest: manifest(),
      runtime: new HarnessRuntime(async (request, _snapshot, port) => {
        const outcome = await callTool(port!, 'call-1', PORTAL_CLIENT, async () => true);
        return probeResult(request, [outcome]);
      }),
      store: new MemoryEventStore(),
      episodeId: 'episode-1',
      clock: steppingClock(),
    });
    await manager.start();
    await manager.advance(1);
    const validate = validators.operationStatusExtension();
    const outer = await manager.getOperation(INVOCATION);
    const tool = await manager.getOperation(`${INVOCATION}:tool=1`);
    expect(outer).toBeDefined();
    expect(tool).toBeDefined();
    expect([...errorsOf(validate, outer), ...errorsOf(validate, tool)]).toEqual([]);
  });
});
