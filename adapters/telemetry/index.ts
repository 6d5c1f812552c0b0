export { telemetryConfigOf, telemetryConfigForEndpoint, type TelemetryConfig } from './config';
export { exportHistoryAsOtlp, type HistoryExported, type HistoryScope } from './export-history';
export { startLiveTelemetry, type LiveTelemetry } from './live-follower';
