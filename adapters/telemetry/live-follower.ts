import type { Subscription, SubscriptionBatch } from '../../domain/ports/event-store';
import type { RefusalListener, ToolCallRefused } from '../../domain/application/port-refusals';
import type { OpenedEventStore } from '../event-store/store-tail';
import type { TelemetryConfig } from './config';
import { openPipeline } from './lazy-pipeline';
import { createTraceEmitter } from './trace-emitter';

/**
 * Emits the log as it grows while the engine runs, through the store's catch-up subscription: woken by
 * the engine's own appends at once, and by other processes' appends as the store tells (LISTEN/NOTIFY
 * on PostgreSQL, the store's poll on SQLite), so a resolution recorded by `raes-tools resolve` elsewhere
 * reaches the running engine's telemetry promptly. It starts at the log's current end (what was there
 * before is history, for `exportHistoryAsOtlp`) and keeps no checkpoint, so a restart never replays old
 * invocations as new telemetry.
 */
export interface LiveTelemetry {
  /** Hand to RuntimeManagerOptions.onRefusal: refusals are traced on their invocation's spans and counted by code. */
  readonly onRefusal: RefusalListener;
  /** Emits what is in the log now, then sends everything buffered. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** A told refusal and the log's end when it was told (known once read: `undefined` until then). */
interface PendingRefusal {
  readonly refusal: ToolCallRefused;
  /** How many batches had been fed when it was told. */
  readonly toldAfter: number;
  logEnd: bigint | 'empty' | undefined;
}

/** How long to wait before following again after the subscription failed (a store out of reach). */
const RETRY_MS = 500;
/** How long flush and close wait for the subscription to reach the log's end. */
const CATCH_UP_LIMIT_MS = 10_000;

const reached = (handled: bigint | undefined, end: bigint | 'empty'): boolean => end === 'empty' || (handled !== undefined && handled >= end);

export const startLiveTelemetry = async (store: OpenedEventStore, config: TelemetryConfig): Promise<LiveTelemetry | undefined> => {
  if (config.kind === 'off') return undefined;
  const tail = await store.readLast();
  const pipeline = openPipeline(config);
  const emitter = createTraceEmitter(pipeline);
  /** The position of the last event fed to the emitter. */
  let handled = tail.kind === 'tail' ? tail.last?.position : undefined;
  let started = tail.kind === 'tail';
  let batches = 0;
  let pending: PendingRefusal[] = [];
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let subscription: Subscription | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let waiters: { readonly end: bigint | 'empty'; readonly resolve: () => void }[] = [];

  const serialized = (work: () => void | Promise<void>): Promise<void> => {
    const next = running.then(work, work);
    running = next.catch(() => undefined);
    return next;
  };

  // A refusal is fed once the log as it stood when it was told has been fed (its invocation's opening
  // is then always read first), and the closed invocations read are sent only when no refusal told
  // before their close was read still waits: such a refusal lands on the invocation's own spans.
  const settle = (): void => {
    const waiting: PendingRefusal[] = [];
    for (const entry of pending) {
      if (entry.logEnd !== undefined && reached(handled, entry.logEnd)) emitter.refused(entry.refusal);
      else waiting.push(entry);
    }
    pending = waiting;
    if (!pending.some((entry) => entry.toldAfter < batches)) emitter.sendClosed();
    const stillWaiting: typeof waiters = [];
    for (const waiter of waiters) {
      if (reached(handled, waiter.end)) waiter.resolve();
      else stillWaiting.push(waiter);
    }
    waiters = stillWaiting;
  };

  const logEnd = async (): Promise<bigint | 'empty' | undefined> => {
    const read = await store.readLast();
    if (read.kind === 'storage_failure') return undefined;
    return read.last?.position ?? 'empty';
  };

  // One read of the log's end serves every refusal told before it began.
  let probing = false;
  const probe = (): void => {
    if (probing) return;
    const unprobed = pending.filter((entry) => entry.logEnd === undefined);
    if (unprobed.length === 0) return;
    probing = true;
    void logEnd().then((end) => {
      probing = false;
      if (end === undefined) {
        // The store is out of reach: the refusals are fed with what was read, rather than never.
        for (const entry of unprobed) entry.logEnd = handled ?? 'empty';
      } else for (const entry of unprobed) entry.logEnd = end;
      void serialized(settle);
      probe();
    });
  };

  const handle = (batch: SubscriptionBatch): Promise<void> =>
    serialized(() => {
      for (const event of batch.events) emitter.handle(event);
      handled = batch.position;
      batches += 1;
      settle();
    });

  const follow = (): void => {
    if (stopped) return;
    if (!started) {
      // Where the log ended could not be read: never follow from its start, which would send the
      // whole history as new telemetry; start where it ends once that can be read.
      void store.readLast().then((read) => {
        if (read.kind === 'tail') {
          started = true;
          handled = read.last?.position;
          follow();
        } else if (!stopped) {
          retryTimer = setTimeout(follow, RETRY_MS);
          retryTimer.unref();
        }
      });
      return;
    }
    const current = store.subscribe({ ...(handled === undefined ? {} : { after: handled }), handle });
    subscription = current;
    void current.ended.then(() => {
      if (subscription === current) subscription = undefined;
      if (stopped) return;
      retryTimer = setTimeout(follow, RETRY_MS);
      retryTimer.unref();
    });
  };
  follow();

  /**
   * Resolves once everything the log holds now was fed and every refusal told so far was fed, or after
   * CATCH_UP_LIMIT_MS when the subscription cannot get there (a store that keeps failing): telemetry
   * never holds up the engine's close.
   */
  const caughtUp = async (): Promise<void> => {
    const deadline = Date.now() + CATCH_UP_LIMIT_MS;
    const end = await logEnd();
    if (end !== undefined) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, CATCH_UP_LIMIT_MS);
        timer.unref();
        void serialized(() => {
          if (reached(handled, end)) resolve();
          else waiters.push({ end, resolve });
        });
      });
    }
    const told = pending.slice();
    while (told.some((entry) => pending.includes(entry)) && Date.now() < deadline) {
      probe();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await serialized(() => {
      // Everything read is sent now: a refusal told meanwhile is fed after it, in its trace.
      emitter.sendClosed();
    });
  };

  // An endpoint that is down, fails or does not answer costs the run its spans, never its own end.
  const delivered = async (send: () => Promise<void>): Promise<void> => {
    try {
      await send();
    } catch (error) {
      process.emitWarning(
        `spans and metrics were not delivered to ${config.tracesUrl} (${error instanceof Error ? error.message : String(error)}); the store holds the whole history: \`raes-tools telemetry export\` sends it again`,
        'TelemetryWarning',
      );
    }
  };

  return {
    onRefusal: (refusal) => {
      pending.push({ refusal, toldAfter: batches, logEnd: undefined });
      probe();
    },
    flush: async () => {
      await caughtUp();
      await delivered(() => pipeline.flush());
    },
    close: async () => {
      await caughtUp();
      stopped = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      await subscription?.stop();
      await serialized(settle);
      await delivered(() => pipeline.shutdown());
    },
  };
};
