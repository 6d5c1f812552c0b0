import type { EventStore } from '../../domain/ports/event-store';
import { telemetryConfigForEndpoint } from './config';
import { openPipeline } from './lazy-pipeline';
import { createTraceEmitter, type InvocationFilter } from './trace-emitter';

const PAGE = 1000;

export type HistoryExported =
  | { readonly kind: 'exported'; readonly events: number; readonly invocations: number }
  | { readonly kind: 'storage_failure'; readonly reason: string };

/** Narrows an export to the invocations of one episode, of one participant, or both. */
export interface HistoryScope {
  readonly episode?: string;
  readonly participant?: string;
}

const filterOf = (scope: HistoryScope): InvocationFilter | undefined =>
  scope.episode === undefined && scope.participant === undefined
    ? undefined
    : (opened) =>
        (scope.episode === undefined || opened.port_values.episode_id === scope.episode) &&
        (scope.participant === undefined || opened.port_values.participant_address === scope.participant);

/**
 * Sends the stored history (its closed invocations, in `scope`) to an OTLP/HTTP endpoint (a base URL,
 * as OTEL_EXPORTER_OTLP_ENDPOINT), page by page.
 */
export const exportHistoryAsOtlp = async (store: EventStore, endpoint: string, scope: HistoryScope = {}): Promise<HistoryExported> => {
  const config = telemetryConfigForEndpoint(endpoint);
  if (config.kind === 'off') return { kind: 'exported', events: 0, invocations: 0 };
  const pipeline = openPipeline(config);
  const emitter = createTraceEmitter(pipeline, filterOf(scope));
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
  return { kind: 'exported', events: count, invocations: emitter.sent };
};
