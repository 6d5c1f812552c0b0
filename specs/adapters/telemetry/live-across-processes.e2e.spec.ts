import { openPostgresEventStore, type PostgresEventStore } from '../../../adapters/event-store/postgres/postgres-event-store';
import { startLiveTelemetry, telemetryConfigOf, type LiveTelemetry } from '../../../adapters/telemetry';
import { cliInBackground, MANIFEST, PARTICIPANT, SCENARIO, scratchDir } from '../cli/support/cli';
import { startPostgresServer, type PostgresServer } from '../event-store/postgres/support/postgres-server';
import { waitFor } from '../event-store/support/wait-for';
import { attributesOf, spansOf, startReceiver, type OtlpReceiver, type OtlpSpan } from './support/otlp-receiver';

/**
 * The live telemetry of a running engine follows the store, not only its own appends: the history
 * `raes-tools run` records in another process, and then the resolution `raes-tools resolve` records in a
 * third, reach it through the store's subscription (LISTEN/NOTIFY on PostgreSQL) while it runs, with
 * no flush, and the resolution lands in the invocation's trace.
 */

jest.setTimeout(180_000);

const named = (receiver: OtlpReceiver, prefix: string): OtlpSpan[] => spansOf(receiver.bodies).filter((span) => span.name.startsWith(prefix));

describe('live telemetry across processes', () => {
  let server: PostgresServer;
  let receiver: OtlpReceiver;
  let store: PostgresEventStore | undefined;
  let live: LiveTelemetry | undefined;
  const scheduleDelay = process.env.OTEL_BSP_SCHEDULE_DELAY;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 120_000);
  afterAll(async () => server?.stop(), 60_000);
  beforeEach(async () => {
    receiver = await startReceiver();
    // The span processor's own batching delay (5 s by default), read the standard way, kept short here.
    process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  });
  afterEach(async () => {
    await live?.close();
    await store?.close();
    await receiver.close();
    if (scheduleDelay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
    else process.env.OTEL_BSP_SCHEDULE_DELAY = scheduleDelay;
  });

  it('sends a run recorded by another process, then a resolution recorded by a third, while it runs', async () => {
    store = openPostgresEventStore({ connectionString: server.url });
    live = await startLiveTelemetry(store, telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }));
    expect(live).toBeDefined();
    const dataDir = scratchDir('live-across-processes');
    const run = await cliInBackground({}, 'run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-live', '--store', 'postgres', '--postgres-url', server.url, '--data-dir', dataDir);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.status).toBe(0);

    await waitFor('the run\'s spans', () => named(receiver, 'invoke_agent').length === 1 && named(receiver, 'execute_tool').length === 3);
    const agent = named(receiver, 'invoke_agent')[0]!;
    expect(agent.name).toBe(`invoke_agent ${PARTICIPANT}`);
    const indeterminate = named(receiver, 'execute_tool').filter((span) => attributesOf(span.attributes)['raes.settlement'] === 'indeterminate');
    expect(indeterminate).toHaveLength(1);
    const actionId = String(attributesOf(indeterminate[0]!.attributes)['raes.action_instance_id']);

    const resolving = cliInBackground({}, 'resolve', actionId, '--effect', 'absent', '--evidence', 'ticket-77', '--store', 'postgres', '--postgres-url', server.url, '--data-dir', dataDir);
    await waitFor('the resolution\'s span', () => named(receiver, 'resolve_tool').length === 1, 60_000);
    const arrivedAt = Date.now();
    const resolve = await resolving;
    expect(resolve.stderr).toBe('');
    expect(resolve.status).toBe(0);

    const resolution = named(receiver, 'resolve_tool')[0]!;
    expect(resolution.traceId).toBe(agent.traceId);
    expect(resolution.parentSpanId).toBe(agent.spanId);
    expect(attributesOf(resolution.attributes)).toMatchObject({ 'raes.action_instance_id': actionId, 'raes.effect': 'absent' });
    expect((resolution as OtlpSpan & { links?: { spanId: string }[] }).links?.map((link) => link.spanId)).toEqual([indeterminate[0]!.spanId]);
    expect(JSON.stringify(spansOf(receiver.bodies))).not.toContain('ticket-77');
    // The span starts when the resolution was decided; the store's notification wakes the subscription at
    // once, where following the log by polling it each second took up to that second more.
    const decidedAt = Number(BigInt(resolution.startTimeUnixNano) / 1_000_000n);
    expect(arrivedAt - decidedAt).toBeLessThan(400);
  });
});
