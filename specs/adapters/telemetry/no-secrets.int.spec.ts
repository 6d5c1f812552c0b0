import { MemoryEventStore } from '../../../adapters/event-store';
import { exportHistoryAsOtlp } from '../../../adapters/telemetry';
import { toolActionRequestFor } from '../../../domain/application';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { spansOf, startReceiver } from './support/otlp-receiver';
import { runOneTick } from './support/run-one-tick';

/** A secret planted in a tool call's arguments, in its result and in the environment never reaches an exported byte. */

const SECRET = 'sk-planted-7f3a9c1e5b2d4860';

describe('telemetry and secrets', () => {
  const saved = process.env.RAES_TEST_API_KEY;
  afterEach(() => {
    if (saved === undefined) delete process.env.RAES_TEST_API_KEY;
    else process.env.RAES_TEST_API_KEY = saved;
  });

  it('exports no byte containing a secret from tool arguments, tool results or the environment', async () => {
    process.env.RAES_TEST_API_KEY = SECRET;
    const receiver = await startReceiver();
    try {
      const store = new MemoryEventStore();
      await runOneTick(store, async (request, _snapshot, port) => {
        const withArguments = { ...toolActionRequestFor(port!, 'call-secret', PORTAL_CLIENT), arguments: { api_key: SECRET }, input: SECRET };
        const decision = await port!.admitAndDispatch(withArguments);
        if (decision.admitted && decision.accepted) {
          const result = { ...probeResult(request, []), observations: [`tool said ${SECRET}`], diagnostics: [SECRET] };
          await port!.complete(decision.action_instance_id, result as never);
        }
        return { ...probeResult(request, []), observations: [SECRET] };
      });
      const log = await store.readAll();
      // The log itself holds the planted result text, so the exporter had it in hand and left it out.
      expect(log.kind === 'read' && JSON.stringify(log.events.map((event) => event.data)).includes(SECRET)).toBe(true);
      await exportHistoryAsOtlp(store, receiver.endpoint);
      // The run did reach the receiver: the spans are there, just without the secret.
      expect(spansOf(receiver.bodies).length).toBeGreaterThanOrEqual(1);
      for (const body of receiver.bodies) expect(body.text).not.toContain(SECRET);
    } finally {
      await receiver.close();
    }
  });
});
