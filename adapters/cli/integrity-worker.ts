import { parentPort, workerData } from 'node:worker_threads';
import { SqliteEventStore, openSqliteEventStore } from '../event-store/sqlite/sqlite-event-store';
import { historyVerifier, verifyRange } from './audit-integrity';
import type { IntegrityThreadData, IntegrityThreadEnd, IntegrityThreadOutcome } from './pass-integrity';

/**
 * The audit's integrity thread (pass-integrity.ts): reads the SQLite store file on a connection of its
 * own and verifies it through the position the store ended at when the pass began, then through the
 * position the pass's end names, and answers the report.
 */

/** Events read at once: few enough that a page's events die young in the thread's small young generation (pass-integrity.ts). */
const PAGE = 250;

const boundOf = (position: string | null): bigint => (position === null ? 0n : BigInt(position));

const nextEnd = (): Promise<IntegrityThreadEnd> => new Promise((resolve) => parentPort!.once('message', (end: IntegrityThreadEnd) => resolve(end)));

const verify = async (data: IntegrityThreadData): Promise<IntegrityThreadOutcome> => {
  const ending = nextEnd();
  const store = openSqliteEventStore({ path: data.path, readOnly: true });
  if (!(store instanceof SqliteEventStore)) return { kind: 'storage_failure', reason: store.reason };
  try {
    const verifier = historyVerifier(store);
    const bound = boundOf(data.through);
    const first = await verifyRange(store, verifier, undefined, bound, PAGE);
    if (first.kind === 'storage_failure') return first;
    const end = boundOf((await ending).through);
    if (end > bound) {
      const rest = await verifyRange(store, verifier, first.last, end, PAGE);
      if (rest.kind === 'storage_failure') return rest;
    }
    return { kind: 'report', report: verifier.report() };
  } finally {
    await store.close();
  }
};

verify(workerData as IntegrityThreadData).then(
  (outcome) => parentPort!.postMessage(outcome),
  (error: unknown) => parentPort!.postMessage({ kind: 'storage_failure', reason: `verifying the store failed: ${String(error)}` } satisfies IntegrityThreadOutcome),
);
