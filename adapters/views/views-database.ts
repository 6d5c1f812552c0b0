import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { StorageFailure } from '../../domain/ports/event-store';
import { describeError, storageFailure } from '../../domain/ports/storage-failure';

/** The views live in their own SQLite file, next to the embedded event store by default. */
export const DEFAULT_VIEWS_PATH = 'esdata/views.sqlite';

/**
 * Opens (creating it and its folder when missing) the views database. Views can always be rebuilt from
 * the store, so commits need not wait for the disk (synchronous=NORMAL under WAL).
 */
export const openViewsDatabase = (path: string = DEFAULT_VIEWS_PATH): Database | StorageFailure => {
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const views = new BetterSqlite3(path);
    views.pragma('busy_timeout = 5000');
    views.pragma('journal_mode = WAL');
    views.pragma('synchronous = NORMAL');
    return views;
  } catch (error) {
    return storageFailure(`opening the views database at '${path}' failed: ${describeError(error)}`);
  }
};
