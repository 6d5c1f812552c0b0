import { readResourceAttributes } from './resource-attributes';

/**
 * OpenTelemetry is off unless an OTLP endpoint is configured the standard way:
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is) or OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces, /v1/metrics),
 * and OTEL_SDK_DISABLED=true turns it off whatever else is set. The resource is OTEL_RESOURCE_ATTRIBUTES
 * with OTEL_SERVICE_NAME as `service.name` (else that variable's `service.name`, else raes-tool-actions).
 * Headers (OTEL_EXPORTER_OTLP_HEADERS) and the span processor's batching (OTEL_BSP_*) are read by the
 * SDK itself.
 */
export type TelemetryConfig =
  | { readonly kind: 'off' }
  | {
      readonly kind: 'on';
      readonly tracesUrl: string;
      readonly metricsUrl: string;
      readonly serviceName: string;
      /** Besides `service.name`. */
      readonly resourceAttributes: Readonly<Record<string, string>>;
      /** Settings that were ignored, and why: told once when the pipeline opens. */
      readonly warnings: readonly string[];
    };

const nonEmpty = (text: string | undefined): string | undefined => (text === undefined || text.trim() === '' ? undefined : text.trim());

const joinPath = (base: string, path: string): string => `${base.replace(/\/+$/, '')}${path}`;

export const DEFAULT_SERVICE_NAME = 'raes-tool-actions';

const SERVICE_NAME = 'service.name';

/** OTEL_SDK_DISABLED: only `true` (any case) disables, as the specification says. */
export const sdkDisabled = (env: NodeJS.ProcessEnv): boolean => env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';

const endpointsOn = (env: NodeJS.ProcessEnv): TelemetryConfig => {
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const traces = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? (base === undefined ? undefined : joinPath(base, '/v1/traces'));
  if (traces === undefined) return { kind: 'off' };
  const metrics =
    nonEmpty(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) ?? (base === undefined ? traces.replace(/\/v1\/traces$/, '/v1/metrics') : joinPath(base, '/v1/metrics'));
  const read = readResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES);
  const resourceAttributes: Record<string, string> = {};
  if (read.kind === 'read') for (const [key, value] of Object.entries(read.attributes)) if (key !== SERVICE_NAME) resourceAttributes[key] = value;
  const serviceName = nonEmpty(env.OTEL_SERVICE_NAME) ?? (read.kind === 'read' ? nonEmpty(read.attributes[SERVICE_NAME]) : undefined) ?? DEFAULT_SERVICE_NAME;
  return { kind: 'on', tracesUrl: traces, metricsUrl: metrics, serviceName, resourceAttributes, warnings: read.kind === 'discarded' ? [read.reason] : [] };
};

/** The configuration of the engine's live telemetry. */
export const telemetryConfigOf = (env: NodeJS.ProcessEnv): TelemetryConfig => (sdkDisabled(env) ? { kind: 'off' } : endpointsOn(env));

/**
 * The configuration for an endpoint given on the command line or by a caller: the base URL, like
 * OTEL_EXPORTER_OTLP_ENDPOINT, with the resource the environment describes. An explicit request to
 * send, so OTEL_SDK_DISABLED (which silences the automatic, live telemetry) does not stop it.
 */
export const telemetryConfigForEndpoint = (endpoint: string, env: NodeJS.ProcessEnv = process.env): TelemetryConfig => {
  const chosen: NodeJS.ProcessEnv = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
  if (env.OTEL_SERVICE_NAME !== undefined) chosen.OTEL_SERVICE_NAME = env.OTEL_SERVICE_NAME;
  if (env.OTEL_RESOURCE_ATTRIBUTES !== undefined) chosen.OTEL_RESOURCE_ATTRIBUTES = env.OTEL_RESOURCE_ATTRIBUTES;
  return endpointsOn(chosen);
};
