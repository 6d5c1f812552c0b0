import type { EventStore } from '../../domain/ports/event-store';
import { telemetryConfigForEndpoint } from './config';
import { openPipeline } from './pipeline';
import { createTraceEmitter } from './trace-emitter';

const PAGE = 1000;

export type HistoryExported = { readonly kind: 'exported'; readonly events: number } | { readonly kind: 'storage_failure'; readonly reason: string };

/** Sends the whole stored history to an OTLP/HTTP endpoint (a base URL, as OTEL_EXPORTER_OTLP_ENDPOINT), page by page. */
export const exportHistoryAsOtlp = async (store: EventStore, endpoint: string): Promise<HistoryExported> => {
  const config = telemetryConfigForEndpoint(endpoint);
  if (config.kind === 'off') return { kind: 'exported', events: 0 };
  const pipeline = openPipeline(config);
  const emitter = createTraceEmitter(pipeline);
  let after: bigint | undefined;
  let count = 0;
  try {
    for (;;) {
      const read = await store.readAll(after === undefined ? { maxCount: PAGE } : { after, maxCount: PAGE });
      if (read.kind === 'storage_failure') return read;
      for (const event of read.events) emitter.handle(event);
      emitter.sendClosed();
      count += read.events.length;
      const last = read.events[read.events.length - 1];
      if (last === undefined || read.events.length < PAGE) break;
      after = last.position;
    }
  } finally {
    await pipeline.shutdown();
  }
  return { kind: 'exported', events: count };
};
