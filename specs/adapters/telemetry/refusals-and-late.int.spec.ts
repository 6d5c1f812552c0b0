import { MemoryEventStore } from '../../../adapters/event-store';
import { startLiveTelemetry, telemetryConfigOf, type LiveTelemetry } from '../../../adapters/telemetry';
import { HarnessRuntime, RuntimeManager, toolActionRequestFor, type InvocationToolActionPort } from '../../../domain/application';
import type { ActionResult } from '../../../domain/invocation';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { compiledScenario, manifest, PARTICIPANT, POLICY, steppingClock } from '../../domain/application/support/world';
import { attributesOf, metricsOf, spansOf, startReceiver, type OtlpMetric, type OtlpReceiver, type OtlpSpan } from './support/otlp-receiver';

/**
 * Refused port calls and what comes after an invocation's spans were sent (a refused late settlement,
 * an operator's resolution), sent live by the real OTLP/HTTP exporters to a receiver on 127.0.0.1.
 */

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;
const TOOL = PORTAL_CLIENT.tool_affordance_address;

const succeeded = (port: InvocationToolActionPort, actionInstanceId: string): ActionResult => ({
  status: 'succeeded',
  participant_address: port.participant_address,
  episode_id: port.episode_id,
  action_instance_id: actionInstanceId,
  action_contract_address: PORTAL_CLIENT.action_contract_address,
  observation_point: port.observation_point,
});

const eventsOf = (span: OtlpSpan, name: string): Record<string, unknown>[] =>
  (span.events ?? []).filter((event) => event.name === name).map((event) => attributesOf(event.attributes));

/** Metrics are cumulative: the last export of a metric holds its totals. */
const lastMetric = (receiver: OtlpReceiver, name: string): OtlpMetric => metricsOf(receiver.bodies).filter((metric) => metric.name === name).pop()!;

const countsBy = (metric: OtlpMetric, attribute: string): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const point of metric.sum!.dataPoints) {
    const key = String(attributesOf(point.attributes)[attribute]);
    counts[key] = (counts[key] ?? 0) + Number(point.asInt ?? point.asDouble);
  }
  return counts;
};

describe('telemetry of refusals and late settlements', () => {
  let receiver: OtlpReceiver;
  let live: LiveTelemetry;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('traces refusals as events with their code, late ones in the invocation trace, and counts refusals by code and resolutions by effect', async () => {
    const store = new MemoryEventStore();
    live = (await startLiveTelemetry(store, telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint })))!;
    let port: InvocationToolActionPort | undefined;
    const ids: Record<string, string> = {};
    class EagerRuntime extends HarnessRuntime {
      override attachInvocationToolActions(attached: InvocationToolActionPort): void {
        void attached.admit(toolActionRequestFor(attached, 'too-early', PORTAL_CLIENT));
        super.attachInvocationToolActions(attached);
      }
    }
    const manager = new RuntimeManager({
      compiled: compiledScenario(),
      manifest: manifest({ claim: true }),
      runtime: new EagerRuntime(async (request, _snapshot, given) => {
        port = given!;
        await port.dispatch('no-such-action');
        for (const call of ['slow', 'left']) {
          const admitted = await port.admitAndDispatch(toolActionRequestFor(port, call, PORTAL_CLIENT));
          if (!admitted.admitted) throw new Error(`${call} was refused`);
          ids[call] = admitted.action_instance_id;
        }
        await port.reportUnknown(ids.slow!, 'timed out');
        // The tool answers after it was reported unknown.
        await port.complete(ids.slow!, succeeded(port, ids.slow!));
        return probeResult(request, []);
      }),
      store,
      episodeId: 'episode-1',
      clock: steppingClock(),
      onRefusal: live.onRefusal,
    });
    await manager.start();
    await manager.advance(1);
    await live.flush();
    const sentAtClose = spansOf(receiver.bodies).length;
    // After the invocation's spans were sent: a settlement for the action the close made indeterminate, and a resolution.
    expect(await port!.complete(ids.left!, succeeded(port!, ids.left!))).toMatchObject({ accepted: false, refusal: 'invocation_closed' });
    expect(await manager.resolve(ids.slow!, 'happened', 'ticket-1')).toEqual({ ok: true });
    await manager.close();
    await live.close();

    const spans = spansOf(receiver.bodies);
    expect(sentAtClose).toBe(3);
    const agent = spans.find((span) => span.name === `invoke_agent ${PARTICIPANT}`)!;
    expect(eventsOf(agent, 'raes.tool_call.refused')).toEqual([
      { 'raes.refusal.code': 'invocation_inactive', 'raes.port_call': 'admit', 'gen_ai.tool.name': TOOL, 'gen_ai.tool.call.id': 'too-early' },
      { 'raes.refusal.code': 'action_unknown', 'raes.port_call': 'dispatch', 'raes.action_instance_id': 'no-such-action' },
    ]);
    const toolSpan = (callId: string): OtlpSpan => spans.find((span) => attributesOf(span.attributes)['gen_ai.tool.call.id'] === callId && span.name.startsWith('execute_tool'))!;
    const slow = toolSpan('slow');
    expect(attributesOf(slow.attributes)).toMatchObject({ 'raes.settlement': 'indeterminate' });
    expect(eventsOf(slow, 'raes.tool_call.refused')).toEqual([
      {
        'raes.refusal.code': 'state_conflict',
        'raes.port_call': 'complete',
        'gen_ai.tool.name': TOOL,
        'raes.action_instance_id': ids.slow,
        'raes.late_settlement': true,
        'raes.action_settlement': 'indeterminate',
      },
    ]);
    expect(attributesOf(toolSpan('left').attributes)).toMatchObject({ 'raes.settlement': 'indeterminate' });

    const late = spans.find((span) => span.name === 'refused complete')!;
    expect(late.traceId).toBe(agent.traceId);
    expect(late.parentSpanId).toBe(agent.spanId);
    expect(attributesOf(late.attributes)).toMatchObject({
      'raes.invocation_action_instance_id': INVOCATION,
      'raes.refusal.code': 'invocation_closed',
      'raes.action_instance_id': ids.left,
      'raes.late_settlement': true,
      'raes.action_settlement': 'indeterminate',
    });
    expect(late.events?.map((event) => event.name)).toEqual(['raes.tool_call.refused']);

    const resolution = spans.find((span) => span.name === `resolve_tool ${TOOL}`)!;
    expect(resolution.traceId).toBe(agent.traceId);
    expect(resolution.parentSpanId).toBe(agent.spanId);
    expect(attributesOf(resolution.attributes)).toMatchObject({ 'raes.action_instance_id': ids.slow, 'raes.effect': 'happened', 'gen_ai.tool.name': TOOL });
    expect((resolution as OtlpSpan & { links?: { spanId: string }[] }).links?.map((link) => link.spanId)).toEqual([slow.spanId]);
    expect(JSON.stringify(spans)).not.toContain('ticket-1');

    expect(countsBy(lastMetric(receiver, 'raes.tool_call.refusals'), 'raes.refusal.code')).toEqual({
      invocation_inactive: 1,
      action_unknown: 1,
      state_conflict: 1,
      invocation_closed: 1,
    });
    expect(countsBy(lastMetric(receiver, 'raes.tool_call.refusals'), 'raes.late_settlement')).toEqual({ undefined: 2, true: 2 });
    expect(countsBy(lastMetric(receiver, 'raes.tool_action.resolutions'), 'raes.effect')).toEqual({ happened: 1 });
  });
});
