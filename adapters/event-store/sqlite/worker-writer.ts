import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AppendResult, EventToAppend, ExpectedRevision } from '../../../domain/ports/event-store';
import { storageFailure } from '../../../domain/ports/storage-failure';
import type { FlatAppends } from './append-batch';
import { encodeAppend, settleFlatAppends, type AppendWriter, type PendingAppend } from './append-queue';
import type { CallingThreadCommit, HeldAppend } from './calling-thread-commit';

/**
 * What the writer thread (writer-thread.js) sends back. It is sent `{ kind: 'append', appends }` (appends
 * in flat form, see decodeAppends) and `{ kind: 'close' }`.
 */
type WriterMessage =
  | { readonly kind: 'written'; readonly messages: number; readonly codes: Float64Array; readonly reasons: readonly string[] }
  | { readonly kind: 'unavailable'; readonly reason: string }
  | { readonly kind: 'closed' };

const WRITER_THREAD = join(__dirname, 'writer-thread.js');

/**
 * An idle writer is started before the turn ends once half the appends outstanding at its last commit
 * are queued (at least MIN_EARLY_START). Callers that resume from one commit then split in two cohorts:
 * the thread commits one while this thread decides the other, instead of the two threads taking turns.
 * Below that, and while the writer is busy, appends go at the turn's end, all in one message.
 */
const MIN_EARLY_START = 16;

export type WorkerWriterOptions = {
  readonly path: string;
  readonly busyTimeoutMs: number;
  readonly onCommitted: () => void;
  /** Commits a lone append on this thread (see enqueue); every append goes to the writer thread without it. */
  readonly lone?: CallingThreadCommit;
};

/**
 * Group commit in a writer thread that owns the write connection, so this thread decides the next calls
 * while the last group commits. Appends requested in one turn of the event loop go to the thread in one
 * message; the thread writes every message that arrived while it was committing in one transaction, and
 * a caller's promise resolves only when the thread reports its transaction committed. The thread is
 * unreferenced while nothing is in flight, so an idle store does not keep the process alive.
 */
export class WorkerWriter implements AppendWriter {
  private readonly worker: Worker;
  private queue: PendingAppend[] = [];
  private flat: FlatAppends = [];
  private scheduled = false;
  /** Messages sent and not yet written, oldest first, each its appends in order. */
  private readonly inFlight: PendingAppend[][] = [];
  private inFlightAppends = 0;
  /** Appends in flight or queued when the last commit was reported: how many callers share commits. */
  private outstandingAtLastCommit = 0;
  /** Appends to commit on this thread once the microtasks queued before the first have run (see isLone). */
  private loneBatch: HeldAppend[] | undefined;
  /** The stream of the lone append committed on this thread in this turn of the event loop, if any. */
  private loneStreamThisTurn: string | undefined;
  private unavailable: string | undefined;
  private closing: Promise<void> | undefined;
  private closed: (() => void) | undefined;

  constructor(private readonly options: WorkerWriterOptions) {
    // No execArgv: the thread is plain CommonJS, and a TypeScript loader inherited from the command line
    // (tsx) would take about 100 ms more to boot it, all of it before the first append can commit.
    this.worker = new Worker(WRITER_THREAD, {
      workerData: { path: options.path, busyTimeoutMs: options.busyTimeoutMs },
      execArgv: [],
    });
    this.worker.unref();
    this.worker.on('message', (message: WriterMessage) => this.received(message));
    this.worker.on('error', (error) => this.fail(`the SQLite writer thread failed: ${error.message}`));
    this.worker.on('exit', (code) => {
      this.fail(`the SQLite writer thread exited (code ${code})`);
      this.closed?.();
    });
  }

  enqueue(stream: string, events: readonly EventToAppend[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    if (this.unavailable !== undefined) return Promise.resolve(storageFailure(this.unavailable));
    if (this.loneBatch === undefined && !this.isLone(stream)) return this.queued(stream, events, expectedRevision);
    return new Promise<AppendResult>((resolve) => {
      if (this.loneBatch === undefined) {
        this.loneBatch = [];
        queueMicrotask(() => this.commitLoneBatch());
      }
      this.loneBatch.push({ stream, events, expectedRevision, resolve });
    });
  }

  /**
   * A caller with nobody to share a commit with: nothing queued or in flight, the last commit served at
   * most one append, and no other stream's append committed on this thread in this turn of the event
   * loop (callers that start in one turn are concurrent: from the second stream on they go to the
   * writer thread). Its append is committed on this thread once the microtasks queued before it have
   * run, together with any append made meanwhile; a caller appending again as soon as its append
   * settled stays lone.
   */
  private isLone(stream: string): boolean {
    return (
      this.options.lone !== undefined &&
      this.inFlight.length === 0 &&
      this.queue.length === 0 &&
      this.outstandingAtLastCommit <= 1 &&
      (this.loneStreamThisTurn === undefined || this.loneStreamThisTurn === stream) &&
      this.closing === undefined
    );
  }

  private commitLoneBatch(): void {
    const batch = this.loneBatch;
    if (batch === undefined) return;
    this.loneBatch = undefined;
    if (this.unavailable !== undefined) {
      for (const append of batch) append.resolve(storageFailure(this.unavailable));
      return;
    }
    const commit = this.options.lone!.write(batch);
    if (commit.kind === 'unwritten') {
      for (const append of commit.appends) void this.queued(append.stream, append.events, append.expectedRevision).then(append.resolve);
      return;
    }
    this.outstandingAtLastCommit = batch.length;
    if (this.loneStreamThisTurn === undefined) setImmediate(() => (this.loneStreamThisTurn = undefined));
    this.loneStreamThisTurn = batch[0]!.stream;
    if (commit.written) this.options.onCommitted();
  }

  private queued(stream: string, events: readonly EventToAppend[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    const unstorable = encodeAppend(this.flat, stream, events, expectedRevision);
    if (unstorable !== undefined) return Promise.resolve(unstorable);
    return new Promise<AppendResult>((resolve) => {
      this.queue.push({ stream, expectedRevision, resolve });
      if (this.inFlight.length === 0 && this.queue.length >= this.earlyStartAt()) this.send();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.send());
      }
    });
  }

  close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    this.commitLoneBatch();
    this.send();
    this.closing = new Promise<void>((resolve) => {
      this.closed = resolve;
      if (this.unavailable !== undefined) {
        void this.worker.terminate();
        return;
      }
      this.worker.ref();
      this.worker.postMessage({ kind: 'close' });
    });
    return this.closing;
  }

  private earlyStartAt(): number {
    return Math.max(MIN_EARLY_START, Math.ceil(this.outstandingAtLastCommit / 2));
  }

  private send(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    const appends = this.flat;
    this.queue = [];
    this.flat = [];
    if (this.unavailable !== undefined) {
      for (const append of batch) append.resolve(storageFailure(this.unavailable));
      return;
    }
    if (this.inFlight.length === 0) this.worker.ref();
    this.inFlight.push(batch);
    this.inFlightAppends += batch.length;
    this.worker.postMessage({ kind: 'append', appends });
  }

  private received(message: WriterMessage): void {
    switch (message.kind) {
      case 'written': {
        this.outstandingAtLastCommit = this.inFlightAppends + this.queue.length;
        const written = this.inFlight.splice(0, message.messages);
        for (const batch of written) this.inFlightAppends -= batch.length;
        if (this.inFlight.length === 0 && this.closing === undefined) this.worker.unref();
        const pending = written.length === 1 ? written[0]! : written.flat();
        if (settleFlatAppends(pending, message)) this.options.onCommitted();
        return;
      }
      case 'unavailable':
        this.fail(`the SQLite event store at '${this.options.path}' cannot be written: ${message.reason}`);
        return;
      case 'closed':
        void this.worker.terminate();
        return;
    }
  }

  /** From now on every append fails with `reason`, those in flight included: none of them is known to be written. */
  private fail(reason: string): void {
    if (this.unavailable === undefined) this.unavailable = reason;
    const lost = this.inFlight.splice(0, this.inFlight.length);
    this.inFlightAppends = 0;
    for (const batch of lost) for (const append of batch) append.resolve(storageFailure(reason));
    const queued = this.queue;
    this.queue = [];
    this.flat = [];
    for (const append of queued) append.resolve(storageFailure(reason));
  }
}
