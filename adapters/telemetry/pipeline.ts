import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Meter, Tracer } from '@opentelemetry/api';

/** The SDK's tracer and meter over OTLP/HTTP (JSON) exporters; providers are local, never registered globally. */
export interface TelemetryPipeline {
  readonly tracer: Tracer;
  readonly meter: Meter;
  /** Sends everything buffered. */
  flush(): Promise<void>;
  /** Flushes, then stops the exporters. */
  shutdown(): Promise<void>;
}

const INSTRUMENTATION = 'raes-tool-actions';

export type PipelineConfig = {
  readonly tracesUrl: string;
  readonly metricsUrl: string;
  readonly serviceName: string;
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly warnings: readonly string[];
};

export const openPipeline = (config: PipelineConfig): TelemetryPipeline => {
  // A process warning, as the SDK's own diagnostics would be: on stderr, and for an embedding program to catch.
  for (const warning of config.warnings) process.emitWarning(warning, 'TelemetryWarning');
  const resource = new Resource({ ...config.resourceAttributes, [ATTR_SERVICE_NAME]: config.serviceName });
  const traces = new BasicTracerProvider({ resource });
  traces.addSpanProcessor(new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesUrl })));
  const metrics = new MeterProvider({
    resource,
    readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: config.metricsUrl }), exportIntervalMillis: 10_000 })],
  });
  return {
    tracer: traces.getTracer(INSTRUMENTATION),
    meter: metrics.getMeter(INSTRUMENTATION),
    flush: async () => {
      await traces.forceFlush();
      await metrics.forceFlush();
    },
    // The exporters stop even when the last flush fails (an endpoint down): a metric reader left
    // running keeps exporting every 10 s and keeps the process alive. The flush's failure is then thrown.
    shutdown: async () => {
      try {
        await traces.forceFlush();
        await metrics.forceFlush();
      } finally {
        await Promise.allSettled([traces.shutdown(), metrics.shutdown()]);
      }
    },
  };
};
