import type { Database } from 'better-sqlite3';
import type { AppendResult, EventToAppend, ExpectedRevision } from '../../../domain/ports/event-store';
import { AppendBatchWriter, type AppendRequest } from './append-batch';
import { settleAppends, toAppendRequest, type AppendWriter, type PendingAppend } from './append-queue';

/**
 * Group commit on the calling thread, for a database only this connection can see (':memory:'):
 * appends requested in the same turn of the event loop are written by one transaction in a
 * `setImmediate` callback, and every caller's promise resolves after COMMIT returns.
 */
export class InThreadWriter implements AppendWriter {
  private queue: PendingAppend[] = [];
  private requests: AppendRequest[] = [];
  private scheduled = false;
  private readonly writer: AppendBatchWriter;

  constructor(
    db: Database,
    private readonly onCommitted: () => void,
  ) {
    this.writer = new AppendBatchWriter(db);
  }

  enqueue(stream: string, events: readonly EventToAppend[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    const request = toAppendRequest(stream, events, expectedRevision);
    if ('kind' in request) return Promise.resolve(request);
    return new Promise<AppendResult>((resolve) => {
      this.queue.push({ stream, expectedRevision, resolve });
      this.requests.push(request);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  async close(): Promise<void> {
    this.flush();
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    const requests = this.requests;
    this.queue = [];
    this.requests = [];
    if (settleAppends(batch, this.writer.write(requests))) this.onCommitted();
  }
}
