import type { EventStore } from '../../domain/ports/event-store';
import type { RefusalListener, ToolCallRefused } from '../../domain/application/port-refusals';
import type { TelemetryConfig } from './config';
import { openPipeline } from './pipeline';
import { createTraceEmitter } from './trace-emitter';

/**
 * Emits the log as it grows while the engine runs: polls `readAll` after the last position it saw.
 * It starts at the log's current end (what was there before is history, for `exportHistoryAsOtlp`) and
 * keeps no checkpoint, so a restart never replays old invocations as new telemetry.
 */
export interface LiveTelemetry {
  /** Hand to RuntimeManagerOptions.onRefusal: refusals are traced on their invocation's spans and counted by code. */
  readonly onRefusal: RefusalListener;
  /** Emits what is in the log now, then sends everything buffered. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const PAGE = 1000;

const lastPosition = async (store: EventStore): Promise<bigint | undefined> => {
  let after: bigint | undefined;
  for (;;) {
    const read = await store.readAll(after === undefined ? { maxCount: PAGE } : { after, maxCount: PAGE });
    if (read.kind === 'storage_failure') return after;
    const last = read.events[read.events.length - 1];
    if (last === undefined) return after;
    after = last.position;
    if (read.events.length < PAGE) return after;
  }
};

export const startLiveTelemetry = async (store: EventStore, config: TelemetryConfig, pollMs = 1000): Promise<LiveTelemetry | undefined> => {
  if (config.kind === 'off') return undefined;
  const pipeline = openPipeline(config);
  const emitter = createTraceEmitter(pipeline);
  let after = await lastPosition(store);
  let running: Promise<void> = Promise.resolve();
  let refusals: ToolCallRefused[] = [];
  const readToEnd = async (): Promise<void> => {
    for (;;) {
      const read = await store.readAll(after === undefined ? { maxCount: PAGE } : { after, maxCount: PAGE });
      if (read.kind === 'storage_failure') return;
      for (const event of read.events) emitter.handle(event);
      const last = read.events[read.events.length - 1];
      if (last === undefined) return;
      after = last.position;
      if (read.events.length < PAGE) return;
    }
  };
  // A refusal is fed after the log as it stood when the refusal was told, and before the invocations
  // closed in that read are sent: its invocation's opening is always read first, and a refusal told
  // before the close was read lands on the invocation's own spans.
  const catchUp = async (): Promise<void> => {
    const told = refusals;
    refusals = [];
    await readToEnd();
    for (const refusal of told) emitter.refused(refusal);
    emitter.sendClosed();
  };
  const step = (): Promise<void> => (running = running.then(catchUp, catchUp));
  const timer = setInterval(() => void step(), pollMs);
  timer.unref();
  return {
    onRefusal: (refusal) => {
      refusals.push(refusal);
    },
    flush: async () => {
      await step();
      await pipeline.flush();
    },
    close: async () => {
      clearInterval(timer);
      await step();
      await pipeline.shutdown();
    },
  };
};
