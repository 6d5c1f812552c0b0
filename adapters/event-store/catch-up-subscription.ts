import type { ReadAllOptions, ReadResult, RecordedEvent, SubscribeOptions, Subscription, SubscriptionEnded } from '../../domain/ports/event-store';
import { passesFilter } from './event-filter';

/** What a store that reads its own global log gives a catch-up subscription (memory, SQLite). */
export type CatchUpSource = {
  readonly readAll: (options: ReadAllOptions) => Promise<ReadResult>;
  /** Calls `listener` after each local append is durable; returns the way to stop listening. */
  readonly onAppended: (listener: () => void) => () => void;
  /** How often to look for appends made by other processes; never when absent. */
  readonly pollIntervalMs?: number;
  readonly pageSize?: number;
};

/** The listeners of a store's live subscriptions, woken each time new events are durable. */
export class AppendedSignal {
  private readonly listeners = new Set<() => void>();

  readonly onAppended = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly notify = (): void => {
    this.listeners.forEach((listener) => listener());
  };

  clear(): void {
    this.listeners.clear();
  }
}

const DEFAULT_PAGE_SIZE = 512;

/**
 * Reads the log after the caller's checkpoint page by page and hands each page's passing events to the
 * handler, waiting for it before reading on; then waits for appends. A page the filter emptied is still
 * handed over (no events, its last position), so the caller's checkpoint moves past it and a restart
 * does not rescan it.
 */
export const startCatchUpSubscription = (source: CatchUpSource, options: SubscribeOptions): Subscription => {
  const pageSize = source.pageSize ?? DEFAULT_PAGE_SIZE;
  let stopping = false;
  let appendedSinceRead = false;
  let wake: (() => void) | undefined;

  const waitForAppends = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer =
        source.pollIntervalMs === undefined ? undefined : setTimeout(() => done(), source.pollIntervalMs);
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      wake = done;
    });

  const run = async (): Promise<SubscriptionEnded> => {
    let after = options.after;
    const stopListening = source.onAppended(() => {
      appendedSinceRead = true;
      if (wake !== undefined) wake();
    });
    try {
      while (!stopping) {
        appendedSinceRead = false;
        const page = await source.readAll(after === undefined ? { maxCount: pageSize } : { after, maxCount: pageSize });
        if (page.kind === 'storage_failure') return page;
        const read = page.events;
        if (read.length > 0) {
          const passing: RecordedEvent[] = [];
          for (let i = 0; i < read.length; i++) {
            const event = read[i]!;
            if (passesFilter(options.filter, event.stream, event.type)) passing.push(event);
          }
          const position = read[read.length - 1]!.position;
          try {
            await options.handle({ events: passing, position });
          } catch (error) {
            return { kind: 'handler_failed', error };
          }
          after = position;
        }
        if (!stopping && read.length < pageSize && !appendedSinceRead) await waitForAppends();
      }
      return { kind: 'stopped' };
    } finally {
      stopListening();
    }
  };

  const ended = run();
  return {
    ended,
    stop: async () => {
      stopping = true;
      if (wake !== undefined) wake();
      await ended;
    },
  };
};
