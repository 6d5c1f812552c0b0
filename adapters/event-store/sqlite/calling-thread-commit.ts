import type { Database, Statement } from 'better-sqlite3';
import type { EventToAppend, ExpectedRevision } from '../../../domain/ports/event-store';
import { AppendBatchWriter, type AppendRequest } from './append-batch';
import { settleAppends, toAppendRequest, type PendingAppend } from './append-queue';

/** How a lone commit ended: committed (its appends settled), or nothing written (another connection held the lock, or this one could not be used). */
export type LoneCommit = { readonly kind: 'committed'; readonly written: boolean } | { readonly kind: 'unwritten'; readonly appends: readonly HeldAppend[] };

/** An append waiting for its commit, with its events. */
export type HeldAppend = PendingAppend & { readonly events: readonly EventToAppend[] };

/**
 * Appends committed on the calling thread, in one transaction through the store's own connection: for
 * callers with nobody to share a group commit with, the two hops to the writer thread and back cost
 * more than the commit's fsync blocks this thread (docs/decisions.md, lone appends).
 *
 * The writer thread's connection sees these commits through `PRAGMA data_version` (append-batch.js),
 * as it sees another process's. The write lock is only tried, never waited for: while another
 * connection holds it the appends come back unwritten, for the writer thread to wait for the lock
 * there rather than on the thread deciding the engine's calls.
 */
export class CallingThreadCommit {
  private readonly writer: AppendBatchWriter;
  private readonly noWait: Statement;
  private readonly wait: Statement;

  constructor(database: Database, busyTimeoutMs: number) {
    this.writer = new AppendBatchWriter(database);
    this.noWait = database.prepare('PRAGMA busy_timeout = 0');
    this.wait = database.prepare(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  }

  /**
   * Commits the appends and settles each (`written` when any was appended), or settles none of them when
   * nothing was written: `unwritten`, with those still to write (those whose events
   * cannot be stored are settled with their failure either way).
   */
  write(appends: readonly HeldAppend[]): LoneCommit {
    const held: HeldAppend[] = [];
    const requests: AppendRequest[] = [];
    for (const append of appends) {
      const request = toAppendRequest(append.stream, append.events, append.expectedRevision);
      if ('kind' in request) append.resolve(request);
      else {
        held.push(append);
        requests.push(request);
      }
    }
    if (requests.length === 0) return { kind: 'committed', written: false };
    try {
      this.noWait.run();
    } catch {
      // This connection cannot be used now: nothing was written, and the writer thread has its own.
      return { kind: 'unwritten', appends: held };
    }
    let outcomes;
    try {
      // Reports every failure as outcomes; it does not throw.
      outcomes = this.writer.write(requests);
    } finally {
      this.restoreWait();
    }
    const first = outcomes[0];
    // BEGIN IMMEDIATE found the lock taken: the transaction never started, so nothing was written.
    if (first !== undefined && first.kind === 'storage_failure' && isLocked(first.reason)) return { kind: 'unwritten', appends: held };
    return { kind: 'committed', written: settleAppends(held, outcomes) };
  }

  /** The connection's busy timeout back for its reads; left at 0 if that fails, a read meeting a lock only fails sooner. */
  private restoreWait(): void {
    try {
      this.wait.run();
    } catch {
      // The append's outcome stands either way.
    }
  }
}

const isLocked = (reason: string): boolean => /database is locked|SQLITE_BUSY/.test(reason);
