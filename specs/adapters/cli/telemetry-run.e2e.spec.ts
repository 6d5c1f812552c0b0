import { join } from 'node:path';
import { cliInBackground, INVOCATION, MANIFEST, PARTICIPANT, SCENARIO, scratchDir } from './support/cli';
import { attributesOf, metricsOf, serviceNamesOf, spansOf, startReceiver, type OtlpMetric, type OtlpReceiver, type OtlpSpan } from '../telemetry/support/otlp-receiver';

/**
 * The real CLI with telemetry export on: `raes-tools run` sends its spans and metrics live to an
 * OTLP/HTTP receiver this spec starts on 127.0.0.1, and `telemetry export` sends the stored run again.
 */

jest.setTimeout(120_000);

const TOOL = 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client';

const byOperation = (spans: readonly OtlpSpan[], operation: string): OtlpSpan[] => spans.filter((span) => attributesOf(span.attributes)['gen_ai.operation.name'] === operation);

/** Each tool action as the spans tell it: call id, tool, settlement, status. */
const toolActionsOf = (spans: readonly OtlpSpan[]): string[] =>
  byOperation(spans, 'execute_tool')
    .map((span) => {
      const attributes = attributesOf(span.attributes);
      return [attributes['gen_ai.tool.call.id'], attributes['gen_ai.tool.name'], attributes['raes.settlement'], attributes['raes.status'] ?? '-'].join(' ');
    })
    .sort();

const lastMetric = (receiver: OtlpReceiver, name: string): OtlpMetric | undefined => metricsOf(receiver.bodies).filter((metric) => metric.name === name).pop();

const countsBy = (metric: OtlpMetric | undefined, attribute: string): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const point of metric?.sum?.dataPoints ?? []) {
    const key = String(attributesOf(point.attributes)[attribute]);
    counts[key] = (counts[key] ?? 0) + Number(point.asInt ?? point.asDouble);
  }
  return counts;
};

describe('raes-tools run with an OTLP endpoint', () => {
  const receivers: OtlpReceiver[] = [];
  const receiver = async (): Promise<OtlpReceiver> => {
    const started = await startReceiver();
    receivers.push(started);
    return started;
  };
  afterAll(async () => {
    for (const started of receivers) await started.close();
  });

  it("sends the run's invocation and tool actions with their outcomes live, and telemetry export sends the same from the store", async () => {
    const live = await receiver();
    const dataDir = scratchDir('telemetry-run');
    const run = await cliInBackground(
      { OTEL_EXPORTER_OTLP_ENDPOINT: live.endpoint, OTEL_SERVICE_NAME: 'probe-agents' },
      'run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-otel', '--data-dir', dataDir, '--json',
    );
    expect(run.status).toBe(0);

    const spans = spansOf(live.bodies);
    const agents = byOperation(spans, 'invoke_agent');
    expect(agents.map((span) => [span.name, attributesOf(span.attributes)['raes.invocation_action_instance_id'], attributesOf(span.attributes)['raes.outcome'], attributesOf(span.attributes)['raes.status']])).toEqual([
      [`invoke_agent ${PARTICIPANT}`, INVOCATION(1), 'returned', 'succeeded'],
    ]);
    expect(attributesOf(agents[0]!.attributes)['raes.episode_id']).toBe('episode-otel');
    const call = (n: number): string => `${INVOCATION(1)}#call-${n}`;
    expect(toolActionsOf(spans)).toEqual([`${call(1)} ${TOOL} completed succeeded`, `${call(2)} ${TOOL} indeterminate -`, `${call(3)} ${TOOL} completed failed`]);
    for (const tool of byOperation(spans, 'execute_tool')) {
      expect(tool.name).toBe(`execute_tool ${TOOL}`);
      expect(tool.parentSpanId).toBe(agents[0]!.spanId);
      expect(tool.traceId).toBe(agents[0]!.traceId);
    }
    expect(new Set(serviceNamesOf(live.bodies))).toEqual(new Set(['probe-agents']));
    expect(countsBy(lastMetric(live, 'raes.tool_actions'), 'raes.settlement')).toEqual({ completed: 2, indeterminate: 1 });

    const later = await receiver();
    const exported = await cliInBackground({}, 'telemetry', 'export', '--endpoint', later.endpoint, '--data-dir', dataDir);
    expect(exported.status).toBe(0);
    expect(exported.stderr).toMatch(/sent 1 invocation \(\d+ events read\) as spans and metrics/);
    const again = spansOf(later.bodies);
    expect(toolActionsOf(again)).toEqual(toolActionsOf(spans));
    expect(byOperation(again, 'invoke_agent').map((span) => span.name)).toEqual([`invoke_agent ${PARTICIPANT}`]);

    // export --format otlp is the same export, narrowed by --episode and --participant.
    const narrowed = await receiver();
    const otlp = await cliInBackground({}, 'export', '--format', 'otlp', '--endpoint', narrowed.endpoint, '--episode', 'episode-otel', '--participant', PARTICIPANT, '--data-dir', dataDir);
    expect(otlp.status).toBe(0);
    expect(otlp.stderr).toMatch(/^raes-tools export --format otlp: sent 1 invocation \(\d+ events read, of episode episode-otel and participant /m);
    expect(toolActionsOf(spansOf(narrowed.bodies))).toEqual(toolActionsOf(spans));
    const empty = await receiver();
    const none = await cliInBackground({}, 'export', '--format', 'otlp', '--endpoint', empty.endpoint, '--episode', 'episode-other', '--data-dir', dataDir);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('holds no closed invocation of episode episode-other');
    expect(spansOf(empty.bodies)).toEqual([]);
  });

  it('sends nothing with OTEL_SDK_DISABLED=true, and tells on stderr that a malformed OTEL_RESOURCE_ATTRIBUTES is ignored', async () => {
    const disabled = await receiver();
    const quiet = await cliInBackground({ OTEL_EXPORTER_OTLP_ENDPOINT: disabled.endpoint, OTEL_SDK_DISABLED: 'true' }, 'run', SCENARIO, '--manifest', MANIFEST, '--store', 'memory', '--json');
    expect(quiet.status).toBe(0);
    expect(disabled.bodies).toEqual([]);

    const live = await receiver();
    const run = await cliInBackground(
      { OTEL_EXPORTER_OTLP_ENDPOINT: live.endpoint, OTEL_RESOURCE_ATTRIBUTES: 'team=agents,no-equals-sign' },
      'run', SCENARIO, '--manifest', MANIFEST, '--store', 'memory', '--json',
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toContain("TelemetryWarning: OTEL_RESOURCE_ATTRIBUTES is ignored: 'no-equals-sign' has no '='");
    expect(byOperation(spansOf(live.bodies), 'invoke_agent')).toHaveLength(1);
    expect(new Set(serviceNamesOf(live.bodies))).toEqual(new Set(['raes-tool-actions']));
  });

  it('finishes a run whose endpoint is down, warning that its spans were not delivered; telemetry export to it fails clearly', async () => {
    const dataDir = scratchDir('telemetry-endpoint-down');
    const down = 'http://127.0.0.1:9';
    const run = await cliInBackground({ OTEL_EXPORTER_OTLP_ENDPOINT: down }, 'run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir, '--json');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ store: 'sqlite' });
    expect(run.stderr).toContain(`TelemetryWarning: spans and metrics were not delivered to ${down}/v1/traces`);
    expect(run.stderr).not.toMatch(/internal error/);
    const exported = await cliInBackground({}, 'telemetry', 'export', '--endpoint', down, '--data-dir', dataDir);
    expect(exported.status).toBe(1);
    expect(exported.stderr).toContain(`raes-tools telemetry export: the OpenTelemetry endpoint ${down} did not take the export`);
    expect(exported.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it('treats --out with --format otlp, and --endpoint without it, as usage errors', async () => {
    const dataDir = scratchDir('telemetry-usage');
    const withOut = await cliInBackground({}, 'export', '--format', 'otlp', '--endpoint', 'http://127.0.0.1:9', '--out', join(dataDir, 'x.json'), '--data-dir', dataDir);
    expect(withOut.status).toBe(2);
    expect(withOut.stderr).toContain('not to a file; drop --out');
    const endpointOnly = await cliInBackground({}, 'export', '--endpoint', 'http://127.0.0.1:9', '--data-dir', dataDir);
    expect(endpointOnly.status).toBe(2);
    expect(endpointOnly.stderr).toContain('--endpoint is where --format otlp sends');
    const noEndpoint = await cliInBackground({}, 'export', '--format', 'otlp', '--data-dir', dataDir);
    expect(noEndpoint.status).toBe(2);
    expect(noEndpoint.stderr).toContain('raes-tools export --format otlp: expected an http(s) URL at --endpoint or OTEL_EXPORTER_OTLP_ENDPOINT');
  });

  it("sends a tool's late answer as a refused late settlement on its action's span, counted by code", async () => {
    const live = await receiver();
    const run = await cliInBackground(
      { OTEL_EXPORTER_OTLP_ENDPOINT: live.endpoint },
      'run', SCENARIO, '--manifest', MANIFEST, '--harness', `module:${join(__dirname, 'support', 'late-tool-runtime.mjs')}`, '--store', 'memory', '--json',
    );
    expect(run.status).toBe(0);
    const spans = spansOf(live.bodies);
    expect(toolActionsOf(spans)).toEqual([`late-call-1 ${TOOL} indeterminate -`]);
    const tool = byOperation(spans, 'execute_tool')[0]!;
    expect((tool.events ?? []).filter((event) => event.name === 'raes.tool_call.refused').map((event) => attributesOf(event.attributes))).toEqual([
      expect.objectContaining({ 'raes.refusal.code': 'state_conflict', 'raes.port_call': 'complete', 'raes.late_settlement': true, 'raes.action_settlement': 'indeterminate' }),
    ]);
    expect(countsBy(lastMetric(live, 'raes.tool_call.refusals'), 'raes.refusal.code')).toEqual({ state_conflict: 1 });
  });
});
