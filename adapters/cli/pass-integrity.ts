import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EventStore, RecordedEvent, StorageFailure } from '../../domain/ports/event-store';
import type { IntegrityReport, IntegrityVerifier } from '../../domain/integrity/verify';
import { SqliteEventStore } from '../event-store/sqlite/sqlite-event-store';
import { historyVerifier, verifyRange } from './audit-integrity';

/**
 * The integrity check of the audit's one read of the log (audit-pass.ts). Its two digests an event
 * take as long as the rest of the pass: on a SQLite store of some size, on a machine with a second
 * core, a thread of its own reads the file on its own connection and verifies it while the pass folds
 * the invocations (docs/decisions.md). Both cover the same events: the thread verifies through the
 * store's last event when the pass began, then through the last event the pass read.
 */

export interface PassIntegrity {
  /** Each event the pass reads, in position order. */
  see(event: RecordedEvent): void;
  /** The check of every event the pass saw, once the pass is over. */
  report(): Promise<IntegrityReport | StorageFailure>;
  /** Stops the thread when the pass ends without a report. */
  dispose(): void;
  /** Which thread checked the events, once the report is in: a failed integrity thread leaves it to the pass's, which reads the store again. */
  readonly checkedBy: CheckedBy;
}

export type CheckedBy = { readonly kind: 'pass' } | { readonly kind: 'integrity_thread' } | { readonly kind: 'pass_after_thread_failed'; readonly reason: string };

export type PassIntegrityOptions = {
  /** From how many events the store is checked on a thread of its own; THREAD_FROM_EVENTS when absent. */
  readonly threadFromEvents?: number;
  /** The thread's entry script; integrity-thread.js when absent. */
  readonly threadEntry?: string;
};

/** What the thread is started with: the file, and the position (decimal) it verifies through before the pass's end is known; null when the store was empty. */
export type IntegrityThreadData = { readonly path: string; readonly through: string | null };
/** The last position the pass read (decimal), null when it read none. */
export type IntegrityThreadEnd = { readonly through: string | null };
export type IntegrityThreadOutcome = { readonly kind: 'report'; readonly report: IntegrityReport } | StorageFailure;

/** Below this many events the pass verifies on its own thread: starting one (loading its modules) would cost more than it saves. */
export const THREAD_FROM_EVENTS = 50_000;

const THREAD_ENTRY = join(__dirname, 'integrity-thread.js');
/**
 * The thread's young generation: V8's default (3 x 16 MB) would add its whole size to the audit's
 * peak memory; the thread reads small pages whose events die young in 16 MB.
 */
const THREAD_YOUNG_GENERATION_MB = 16;

class InlineIntegrity implements PassIntegrity {
  readonly checkedBy: CheckedBy = { kind: 'pass' };

  constructor(private readonly verifier: IntegrityVerifier) {}

  see(event: RecordedEvent): void {
    this.verifier.add(event);
  }

  report(): Promise<IntegrityReport> {
    return Promise.resolve(this.verifier.report());
  }

  dispose(): void {}
}

class ThreadIntegrity implements PassIntegrity {
  checkedBy: CheckedBy = { kind: 'integrity_thread' };
  private last: bigint | undefined;
  private readonly outcome: Promise<IntegrityThreadOutcome>;

  constructor(
    private readonly worker: Worker,
    private readonly store: EventStore,
    private readonly startedThrough: bigint,
  ) {
    this.outcome = new Promise((resolve) => {
      worker.once('message', (outcome: IntegrityThreadOutcome) => resolve(outcome));
      worker.once('error', (error) => resolve({ kind: 'storage_failure', reason: `the integrity thread failed: ${error.message}` }));
      worker.once('exit', (code) => resolve({ kind: 'storage_failure', reason: `the integrity thread stopped (exit code ${code}) before its report` }));
    });
  }

  see(event: RecordedEvent): void {
    this.last = event.position;
  }

  async report(): Promise<IntegrityReport | StorageFailure> {
    this.worker.postMessage({ through: this.last === undefined ? null : this.last.toString() } satisfies IntegrityThreadEnd);
    const outcome = await this.outcome;
    void this.worker.terminate();
    if (outcome.kind === 'report') return outcome.report;
    // A thread that could not finish (its modules, its own connection): the same check, read again here.
    this.checkedBy = { kind: 'pass_after_thread_failed', reason: outcome.reason };
    const verifier = historyVerifier(this.store);
    const through = this.last === undefined || this.last < this.startedThrough ? this.startedThrough : this.last;
    const verified = await verifyRange(this.store, verifier, undefined, through);
    return verified.kind === 'storage_failure' ? verified : verifier.report();
  }

  dispose(): void {
    void this.worker.terminate();
  }
}

/** The pass's integrity check over `store`: on a thread of its own when the store is a SQLite file holding at least `threadFromEvents` events. */
export const passIntegrity = async (store: EventStore, options: PassIntegrityOptions = {}): Promise<PassIntegrity> => {
  const threadFromEvents = options.threadFromEvents ?? THREAD_FROM_EVENTS;
  const inline = (): PassIntegrity => new InlineIntegrity(historyVerifier(store));
  if (!(store instanceof SqliteEventStore) || store.database.memory || availableParallelism() < 2) return inline();
  const tail = await store.readLast();
  if (tail.kind !== 'tail') return inline();
  const through = tail.last?.position ?? 0n;
  // The store numbers its events without gaps from 1: its last position is how many it holds.
  if (through < BigInt(threadFromEvents)) return inline();
  const data: IntegrityThreadData = { path: store.database.name, through: tail.last === undefined ? null : through.toString() };
  return new ThreadIntegrity(new Worker(options.threadEntry ?? THREAD_ENTRY, { workerData: data, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB } }), store, through);
};
