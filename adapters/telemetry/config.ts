/**
 * OpenTelemetry is off unless an OTLP endpoint is configured the standard way:
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is) or OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces, /v1/metrics).
 * OTEL_SERVICE_NAME names the service (default raes-tool-actions). Headers (OTEL_EXPORTER_OTLP_HEADERS)
 * are read by the exporters themselves.
 */
export type TelemetryConfig =
  | { readonly kind: 'off' }
  | { readonly kind: 'on'; readonly tracesUrl: string; readonly metricsUrl: string; readonly serviceName: string };

const nonEmpty = (text: string | undefined): string | undefined => (text === undefined || text.trim() === '' ? undefined : text.trim());

const joinPath = (base: string, path: string): string => `${base.replace(/\/+$/, '')}${path}`;

export const DEFAULT_SERVICE_NAME = 'raes-tool-actions';

export const telemetryConfigOf = (env: NodeJS.ProcessEnv): TelemetryConfig => {
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const traces = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? (base === undefined ? undefined : joinPath(base, '/v1/traces'));
  if (traces === undefined) return { kind: 'off' };
  const metrics =
    nonEmpty(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) ?? (base === undefined ? traces.replace(/\/v1\/traces$/, '/v1/metrics') : joinPath(base, '/v1/metrics'));
  return { kind: 'on', tracesUrl: traces, metricsUrl: metrics, serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? DEFAULT_SERVICE_NAME };
};

/** The configuration for an endpoint given on the command line or by a caller: the base URL, like OTEL_EXPORTER_OTLP_ENDPOINT. */
export const telemetryConfigForEndpoint = (endpoint: string, env: NodeJS.ProcessEnv = process.env): TelemetryConfig =>
  telemetryConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, ...(env.OTEL_SERVICE_NAME === undefined ? {} : { OTEL_SERVICE_NAME: env.OTEL_SERVICE_NAME }) });
