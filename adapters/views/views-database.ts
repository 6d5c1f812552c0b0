import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { StorageFailure } from '../../domain/ports/event-store';
import { describeError, storageFailure } from '../../domain/ports/storage-failure';
import { openReadOnlyDatabase } from '../event-store/sqlite/read-only-database';

/** The views live in their own SQLite file, next to the embedded event store by default. */
export const DEFAULT_VIEWS_PATH = 'esdata/views.sqlite';

export type ViewsOptions = {
  /**
   * For commands that only read: the views are caught up in a copy in memory (an empty one when the
   * file is missing), and nothing is written to the file or beside it.
   */
  readonly readOnly?: boolean;
};

/**
 * Opens (creating it and its folder when missing) the views database. Views can always be rebuilt from
 * the store, so commits need not wait for the disk (synchronous=NORMAL under WAL).
 */
export const openViewsDatabase = (path: string = DEFAULT_VIEWS_PATH, options: ViewsOptions = {}): Database | StorageFailure => {
  try {
    if (options.readOnly === true && path !== ':memory:') {
      const copy = existsSync(path) ? openReadOnlyDatabase(path, { inMemoryCopy: true }) : new BetterSqlite3(':memory:');
      // Reading the schema finds a corrupt file now, with the message a corrupt file gets.
      copy.prepare('SELECT COUNT(*) FROM sqlite_master').get();
      return copy;
    }
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
