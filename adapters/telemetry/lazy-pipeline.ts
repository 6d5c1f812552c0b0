import type { PipelineConfig, TelemetryPipeline } from './pipeline';

/**
 * The OpenTelemetry SDK and its exporters load when telemetry is configured, not at every start of
 * every command (they take a few hundred milliseconds to load).
 */
export const openPipeline = (config: PipelineConfig): TelemetryPipeline => (require('./pipeline') as typeof import('./pipeline')).openPipeline(config);
