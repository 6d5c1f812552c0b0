import { MemoryEventStore } from '../../../adapters/event-store';
import { exportHistoryAsOtlp, startLiveTelemetry, telemetryConfigOf } from '../../../adapters/telemetry';
import { callTool, ToolTimeout } from '../../../examples/harness/call-tool';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { PARTICIPANT, POLICY } from '../../domain/application/support/world';
import { attributesOf, metricsOf, serviceNamesOf, spansOf, startReceiver, type OtlpReceiver } from './support/otlp-receiver';
import { runOneTick } from './support/run-one-tick';

/** A real engine run, its log sent by the real OTLP/HTTP (JSON) exporters to a receiver on 127.0.0.1. */

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;

const runEngine = (store: MemoryEventStore): Promise<void> =>
  runOneTick(store, async (request, _snapshot, port) => {
    await callTool(port!, 'call-1', PORTAL_CLIENT, async () => true);
    await callTool(port!, 'call-2', PORTAL_CLIENT, async () => {
      throw new ToolTimeout('portal-client');
    });
    return probeResult(request, []);
  });

describe('telemetry over OTLP/HTTP', () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('sends an invoke_agent span with an execute_tool child per tool action, their event times, and the metrics', async () => {
    const store = new MemoryEventStore();
    await runEngine(store);
    const exported = await exportHistoryAsOtlp(store, receiver.endpoint);
    expect(exported.kind).toBe('exported');

    const spans = spansOf(receiver.bodies);
    const agent = spans.filter((span) => attributesOf(span.attributes)['gen_ai.operation.name'] === 'invoke_agent');
    const tools = spans.filter((span) => attributesOf(span.attributes)['gen_ai.operation.name'] === 'execute_tool');
    expect(agent).toHaveLength(1);
    expect(tools).toHaveLength(2);
    const parent = agent[0]!;
    expect(attributesOf(parent.attributes)).toMatchObject({ 'raes.invocation_action_instance_id': INVOCATION, 'gen_ai.agent.id': PARTICIPANT, 'raes.outcome': 'returned' });
    for (const tool of tools) {
      expect(tool.parentSpanId).toBe(parent.spanId);
      expect(tool.traceId).toBe(parent.traceId);
      expect(BigInt(tool.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(parent.startTimeUnixNano));
      expect(BigInt(tool.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(parent.endTimeUnixNano));
      expect((tool.events ?? []).map((event) => event.name)).toEqual(['raes.tool_action.admitted', 'raes.tool_action.dispatched', 'raes.tool_action.settled']);
    }
    const byCall = new Map(tools.map((tool) => [attributesOf(tool.attributes)['gen_ai.tool.call.id'], attributesOf(tool.attributes)]));
    expect(byCall.get('call-1')).toMatchObject({ 'gen_ai.tool.name': PORTAL_CLIENT.tool_affordance_address, 'raes.settlement': 'completed', 'raes.status': 'succeeded' });
    expect(byCall.get('call-2')).toMatchObject({ 'raes.settlement': 'indeterminate' });

    const metrics = metricsOf(receiver.bodies);
    const counted = metrics.find((metric) => metric.name === 'raes.tool_actions')!;
    const bySettlement = Object.fromEntries(counted.sum!.dataPoints.map((point) => [attributesOf(point.attributes)['raes.settlement'], Number(point.asInt ?? point.asDouble)]));
    expect(bySettlement).toEqual({ completed: 1, indeterminate: 1 });
    const duration = metrics.find((metric) => metric.name === 'gen_ai.execute_tool.duration')!;
    expect(duration.histogram!.dataPoints.reduce((sum, point) => sum + Number(point.count), 0)).toBe(2);
  });

  it('follows the log live while the engine runs, under OTEL_SERVICE_NAME, and is off without an endpoint', async () => {
    const store = new MemoryEventStore();
    expect(await startLiveTelemetry(store, telemetryConfigOf({}))).toBeUndefined();
    const live = await startLiveTelemetry(store, telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'agents-under-test' }));
    await runEngine(store);
    await live!.close();
    expect(spansOf(receiver.bodies).map((span) => span.name).sort()).toEqual([
      `execute_tool ${PORTAL_CLIENT.tool_affordance_address}`,
      `execute_tool ${PORTAL_CLIENT.tool_affordance_address}`,
      `invoke_agent ${PARTICIPANT}`,
    ]);
    expect(new Set(serviceNamesOf(receiver.bodies))).toEqual(new Set(['agents-under-test']));
  });
});
