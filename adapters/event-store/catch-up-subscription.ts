import type { CheckpointStore, ReadAllOptions, ReadResult, SubscribeOptions, Subscription, SubscriptionEnded } from '../../domain/ports/event-store';
import { passesFilter } from './event-filter';

/** What a store that reads its own global log gives a catch-up subscription (memory, SQLite). */
export type CatchUpSource = {
  readonly readAll: (options: ReadAllOptions) => Promise<ReadResult>;
  readonly checkpoints: CheckpointStore;
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
 * Reads the log after the stored checkpoint page by page, handles each passing event inside its
 * checkpoint commit, then waits for appends. A filtered-out tail of a page is checkpointed once, so
 * a restart does not rescan it.
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
    const checkpoint = await source.checkpoints.read(options.subscriberId);
    if (checkpoint.kind === 'storage_failure') return checkpoint;
    let after = checkpoint.position ?? 0n;
    const stopListening = source.onAppended(() => {
      appendedSinceRead = true;
      if (wake !== undefined) wake();
    });
    try {
      while (!stopping) {
        appendedSinceRead = false;
        const page = await source.readAll({ after, maxCount: pageSize });
        if (page.kind === 'storage_failure') return page;
        let skippedUpTo: bigint | undefined;
        for (const event of page.events) {
          if (stopping) break;
          if (!passesFilter(options.filter, event.stream, event.type)) {
            skippedUpTo = event.position;
            after = event.position;
            continue;
          }
          let committed;
          try {
            committed = await source.checkpoints.commit(options.subscriberId, event.position, () =>
              options.handle(event),
            );
          } catch (error) {
            return { kind: 'handler_failed', error };
          }
          if (committed.kind === 'storage_failure') return committed;
          skippedUpTo = undefined;
          after = event.position;
        }
        if (skippedUpTo !== undefined) {
          const committed = await source.checkpoints.commit(options.subscriberId, skippedUpTo, () => undefined);
          if (committed.kind === 'storage_failure') return committed;
        }
        if (!stopping && page.events.length < pageSize && !appendedSinceRead) await waitForAppends();
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
