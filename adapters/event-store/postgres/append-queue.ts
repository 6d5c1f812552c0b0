import type { AppendResult } from '../../../domain/ports/event-store';
import type { BatchResult, PendingAppend } from './append-batch';

type Queued = PendingAppend & { readonly resolve: (result: AppendResult) => void };

/** What the queue asks of the store: write a batch in one transaction, or say why it could not. */
export type BatchWriter = (
  batch: readonly PendingAppend[],
) => Promise<{ readonly kind: 'written'; readonly results: readonly BatchResult[] } | { readonly kind: 'failed'; readonly error: unknown }>;

const MAX_BATCH = 256;

/**
 * A process's appends, written one transaction at a time: the appends that arrive while a transaction
 * commits share the next one (and its commit), so the log-head lock and the commit's WAL flush are
 * paid once per batch. When a batch fails, its appends are written again one by one, so a failing
 * append fails alone.
 */
export class AppendQueue {
  private readonly pending: Queued[] = [];
  private draining = false;

  constructor(
    private readonly write: BatchWriter,
    private readonly failureOf: (append: PendingAppend, error: unknown) => Promise<AppendResult>,
  ) {}

  enqueue(append: PendingAppend): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve) => {
      this.pending.push({ stream: append.stream, events: append.events, options: append.options, resolve });
      if (!this.draining) {
        this.draining = true;
        void this.drain();
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      // The appends requested in the same event-loop turn share the first transaction too.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        const deferred = await this.writeBatch(batch);
        this.pending.unshift(...deferred);
      }
    } finally {
      // Reset in the same step as the last look at `pending`: an append queued after it starts a drain.
      this.draining = false;
    }
  }

  /** Resolves each append of the batch; returns those deferred to the next transaction. */
  private async writeBatch(batch: readonly Queued[]): Promise<Queued[]> {
    const outcome = await this.write(batch);
    if (outcome.kind === 'written') return this.settle(batch, outcome.results);
    if (batch.length === 1) {
      batch[0]!.resolve(await this.failureOf(batch[0]!, outcome.error));
      return [];
    }
    for (const append of batch) {
      const alone = await this.write([append]);
      if (alone.kind === 'written') this.settle([append], alone.results);
      else append.resolve(await this.failureOf(append, alone.error));
    }
    return [];
  }

  private settle(batch: readonly Queued[], results: readonly BatchResult[]): Queued[] {
    const deferred: Queued[] = [];
    for (let index = 0; index < batch.length; index += 1) {
      const result = results[index]!;
      if (result === 'deferred') deferred.push(batch[index]!);
      else batch[index]!.resolve(result);
    }
    return deferred;
  }
}
