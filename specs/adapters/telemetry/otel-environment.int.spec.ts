import { MemoryEventStore } from '../../../adapters/event-store';
import { exportHistoryAsOtlp, startLiveTelemetry, telemetryConfigOf } from '../../../adapters/telemetry';
import { callTool } from '../../../examples/harness/call-tool';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { resourcesOf, spansOf, startReceiver, type OtlpReceiver } from './support/otlp-receiver';
import { runOneTick } from './support/run-one-tick';

/**
 * The standard OpenTelemetry environment beyond the endpoint: OTEL_SDK_DISABLED and
 * OTEL_RESOURCE_ATTRIBUTES, seen in what the real exporters send to a receiver on 127.0.0.1.
 */

const runEngine = (store: MemoryEventStore): Promise<void> =>
  runOneTick(store, async (request, _snapshot, port) => {
    await callTool(port!, 'call-1', PORTAL_CLIENT, async () => true);
    return probeResult(request, []);
  });

describe('the OpenTelemetry environment', () => {
  let receiver: OtlpReceiver;
  const saved = { ...process.env };
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    for (const name of ['OTEL_SERVICE_NAME', 'OTEL_RESOURCE_ATTRIBUTES']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('turns live telemetry off with OTEL_SDK_DISABLED=true (any case), whatever endpoint is set', async () => {
    const store = new MemoryEventStore();
    for (const disabled of ['true', 'TRUE', ' True ']) {
      expect(await startLiveTelemetry(store, telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SDK_DISABLED: disabled }))).toBeUndefined();
    }
    // Only `true` disables; anything else leaves it on.
    for (const notDisabled of ['false', '1', '']) {
      const live = await startLiveTelemetry(store, telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SDK_DISABLED: notDisabled }));
      expect(live).toBeDefined();
      await live!.close();
    }
    await runEngine(store);
    expect(spansOf(receiver.bodies)).toEqual([]);
  });

  it('adds OTEL_RESOURCE_ATTRIBUTES, percent-decoded, to the resource of spans and metrics, OTEL_SERVICE_NAME naming the service', async () => {
    const store = new MemoryEventStore();
    const live = await startLiveTelemetry(
      store,
      telemetryConfigOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_SERVICE_NAME: 'agents-under-test',
        OTEL_RESOURCE_ATTRIBUTES: ' deployment.environment.name = staging ,team=agents%2Cops,note=a%3Db%20c,service.name=overridden',
      }),
    );
    await runEngine(store);
    await live!.close();
    expect(spansOf(receiver.bodies).length).toBeGreaterThan(0);
    const resources = resourcesOf(receiver.bodies);
    expect(new Set(receiver.bodies.map((body) => body.path))).toEqual(new Set(['/v1/traces', '/v1/metrics']));
    expect(resources.length).toBe(receiver.bodies.length);
    for (const resource of resources) {
      expect(resource).toMatchObject({ 'service.name': 'agents-under-test', 'deployment.environment.name': 'staging', team: 'agents,ops', note: 'a=b c' });
    }
  });

  it('takes service.name from OTEL_RESOURCE_ATTRIBUTES without OTEL_SERVICE_NAME, on an export of a stored history too', async () => {
    const store = new MemoryEventStore();
    await runEngine(store);
    delete process.env.OTEL_SERVICE_NAME;
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'service.name=gateway-7,service.version=1.2';
    expect(await exportHistoryAsOtlp(store, receiver.endpoint)).toMatchObject({ kind: 'exported', invocations: 1 });
    const resources = resourcesOf(receiver.bodies);
    expect(resources.length).toBeGreaterThan(0);
    for (const resource of resources) expect(resource).toMatchObject({ 'service.name': 'gateway-7', 'service.version': '1.2' });
  });

  it('discards a malformed OTEL_RESOURCE_ATTRIBUTES whole, with a warning that says how to write it', async () => {
    const store = new MemoryEventStore();
    const config = telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_RESOURCE_ATTRIBUTES: 'team=agents,no-equals-sign' });
    // Told as a process warning when the pipeline opens (on stderr: specs/adapters/cli/telemetry-run.e2e.spec.ts).
    expect(config).toMatchObject({
      kind: 'on',
      resourceAttributes: {},
      warnings: ["OTEL_RESOURCE_ATTRIBUTES is ignored: 'no-equals-sign' has no '='; write it as key=value,key2=value2, with ',' and '=' inside a key or value percent-encoded (%2C, %3D)"],
    });
    const live = await startLiveTelemetry(store, config);
    await runEngine(store);
    await live!.close();
    expect(resourcesOf(receiver.bodies).length).toBeGreaterThan(0);
    for (const resource of resourcesOf(receiver.bodies)) {
      expect(resource).not.toHaveProperty('team');
      expect(resource['service.name']).toBe('raes-tool-actions');
    }
    expect(telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_RESOURCE_ATTRIBUTES: 'team=%E0%A4%A' })).toMatchObject({
      kind: 'on',
      resourceAttributes: {},
      warnings: [expect.stringContaining("'team=%E0%A4%A' is not valid percent-encoding")],
    });
  });
});
