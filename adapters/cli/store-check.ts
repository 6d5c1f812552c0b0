import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { identifyStore, readStoreIdentity } from '../event-store/store-identity';
import type { OpenedEventStore } from '../event-store/store-tail';
import { checkTail } from '../event-store/tail-check';
import { isDamagedSqliteFile } from './corrupt-views';
import { jobEpisodes } from './job-file';
import { readStoreRecord, writeStoreRecord, type StoreRecord } from './store-record';

/**
 * Before a command uses a data directory, the store must be the one its views and job file were made
 * from, and not behind them: a store emptied, replaced or restored from an older backup would make the
 * engine start over in a running episode (reusing the action ids of the lost history) or show views of
 * events the store no longer has. A writer also checks the store is readable to its end before it
 * appends. See docs/decisions.md, "Store identity".
 */

export type StoreChecked = { readonly ok: true; readonly record: StoreRecord | undefined } | { readonly ok: false; readonly message: string };

export interface StoreCheckInput {
  readonly store: OpenedEventStore;
  readonly storeKind: string;
  /** How the message names the store, and the setting that points at another one. */
  readonly storeLabel: string;
  readonly storeSetting: string;
  readonly dataDir: string;
  readonly views: Database;
  /** Appends as the engine: checks the tail, identifies a new store and records it in the data dir. */
  readonly writer: boolean;
  /** Rebuilds every view from the store: a store behind the views is what it is asked to repair. */
  readonly rebuildsViews?: boolean;
}

/** The highest position any view has applied; undefined before the first. */
const viewsPosition = (views: Database): bigint | undefined => {
  try {
    const row = views.prepare('SELECT MAX(position) AS position FROM projection_checkpoints').safeIntegers(true).get() as { position: bigint | null } | undefined;
    return row?.position ?? undefined;
  } catch {
    return undefined; // no view was ever caught up in this file
  }
};

const later = (a: bigint | undefined, b: bigint | undefined): bigint | undefined => (a === undefined ? b : b === undefined ? a : a > b ? a : b);

const refused = (message: string): StoreChecked => ({ ok: false, message });

export const checkStore = async (input: StoreCheckInput): Promise<StoreChecked> => {
  const { store, storeLabel, storeSetting, dataDir } = input;
  const newDataDir = `to keep this store and start a new history, use a new --data-dir`;
  const tail = await checkTail(store);
  const restore = `Restore the store from a backup (then run \`raes-tools projections rebuild --data-dir ${dataDir}\`), or point ${storeSetting} at the right store`;
  if (tail.kind === 'unreadable' && input.writer) {
    return refused(`the event store ${storeLabel} is not readable to its end, so nothing was appended to it: ${tail.reason}. ${restore}`);
  }
  // A store that did not answer (a server down, a file it cannot read) is not damaged unless it says so.
  if (tail.kind === 'unavailable' && input.writer) {
    return refused(`the event store ${storeLabel} could not be read, so nothing was appended to it: ${tail.reason}${isDamagedSqliteFile(tail.reason) ? `. ${restore}` : ''}`);
  }
  const lastPosition = tail.lastPosition;
  const identity = await readStoreIdentity(store);
  if (identity.kind === 'storage_failure') return refused(identity.reason);
  const recorded = readStoreRecord(dataDir);
  if (recorded.kind === 'invalid') {
    return refused(`the data directory's store record is unreadable (${recorded.message}): restore it from a backup, or ${newDataDir}`);
  }
  const seen = later(recorded.kind === 'found' ? recorded.lastPosition : undefined, viewsPosition(input.views));
  const made = recorded.kind === 'found' ? `the views and job of store ${recorded.record.store_id}` : 'views and a job';
  if (identity.kind === 'unidentified') {
    const dataDirUsed = recorded.kind === 'found' || seen !== undefined || jobEpisodes(dataDir).length > 0;
    if (lastPosition === undefined && dataDirUsed) {
      return refused(
        `the event store ${storeLabel} is empty, but ${dataDir} holds ${made}${seen === undefined ? '' : ` up to position ${seen}`}: ` +
          `the store was emptied or replaced. Restore it from a backup, or point ${storeSetting} at the store this data directory belongs to; ${newDataDir}`,
      );
    }
    if (recorded.kind === 'found') {
      return refused(
        `the event store ${storeLabel} has no identity, but ${dataDir} belongs to store ${recorded.record.store_id}: it was replaced by another store, or its first event (its identity) was removed from it. ` +
          `Point ${storeSetting} at the store this data directory belongs to, or restore it from a backup; ${newDataDir}`,
      );
    }
  } else if (recorded.kind === 'found' && recorded.record.store_id !== identity.storeId) {
    return refused(
      `the event store ${storeLabel} is store ${identity.storeId}, but ${dataDir} belongs to store ${recorded.record.store_id}: the store was replaced. ` +
        `Point ${storeSetting} at the store this data directory belongs to, or restore it from a backup; ${newDataDir}`,
    );
  }
  const behind = seen !== undefined && (lastPosition === undefined || lastPosition < seen);
  if (behind && input.rebuildsViews !== true) {
    return refused(
      `the event store ${storeLabel} ends at position ${lastPosition ?? 'none (it is empty)'}, behind position ${seen} that ${dataDir} has seen: ` +
        `it was restored from an older backup or lost its last commits. If you restored it on purpose, run ` +
        `\`raes-tools projections rebuild --data-dir ${dataDir}\` to rebuild the views from it; otherwise point ${storeSetting} at the up-to-date store`,
    );
  }
  if (!input.writer) return { ok: true, record: recorded.kind === 'found' ? recorded.record : undefined };
  const identified = identity.kind === 'identified' ? identity : await identifyStore(store, randomUUID(), new Date());
  if (identified.kind === 'storage_failure') return refused(identified.reason);
  if (identified.kind === 'unidentified') return refused(`the event store ${storeLabel} could not be given an identity; try again`);
  const position = identity.kind === 'identified' ? lastPosition : await positionAfterIdentifying(store, lastPosition);
  const record: StoreRecord = { store_id: identified.storeId, store_kind: input.storeKind, last_position: position === undefined ? null : position.toString() };
  try {
    writeStoreRecord(dataDir, record);
  } catch (error) {
    return refused(`recording the store in ${dataDir} failed: ${(error as Error).message}; check that the data directory is writable`);
  }
  return { ok: true, record };
};

const positionAfterIdentifying = async (store: OpenedEventStore, before: bigint | undefined): Promise<bigint | undefined> => {
  const tail = await store.readLast();
  return tail.kind === 'tail' ? (tail.last?.position ?? before) : before;
};

/** A writer's last word: the position the store reached, so a later opening can tell a store that went back. */
export const recordLastPosition = async (store: OpenedEventStore, dataDir: string, record: StoreRecord): Promise<void> => {
  const tail = await store.readLast();
  if (tail.kind !== 'tail' || tail.last === undefined) return;
  const known = record.last_position === null ? undefined : BigInt(record.last_position);
  if (known !== undefined && tail.last.position <= known) return;
  const current = readStoreRecord(dataDir);
  if (current.kind !== 'found' || current.record.store_id !== record.store_id) return;
  if (current.lastPosition !== undefined && current.lastPosition >= tail.last.position) return;
  writeStoreRecord(dataDir, { ...record, last_position: tail.last.position.toString() });
};
