import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { StorageFailure } from '../../domain/ports/event-store';
import { describeError, storageFailure } from '../../domain/ports/storage-failure';
import { openReadOnlyDatabase, removingOnClose } from '../event-store/sqlite/read-only-database';
import { makeFolderOrThrow } from '../files/make-folder';
import { makeTemporaryFolder } from '../files/temporary-folder';

/** The views live in their own SQLite file, next to the embedded event store by default. */
export const DEFAULT_VIEWS_PATH = 'esdata/views.sqlite';

export type ViewsOptions = {
  /**
   * For commands that only read: the views are caught up in a temporary copy (an empty one when the
   * file is missing), removed on close, and nothing is written to the file or beside it.
   */
  readonly readOnly?: boolean;
};

/**
 * A copy of the views file in a temporary folder, for a read-only command to catch up: on disk, not in
 * memory, so that catching up a cold or old views file over a long history keeps memory flat. Closing
 * the connection removes the folder.
 */
const temporaryCopy = (path: string): Database => {
  const folder = makeTemporaryFolder('raes-views-');
  const copyPath = join(folder.path, 'views.sqlite');
  try {
    if (existsSync(path)) {
      const source = openReadOnlyDatabase(path);
      try {
        // Reading the schema finds a corrupt file now, with the message a corrupt file gets.
        source.prepare('SELECT COUNT(*) FROM sqlite_master').get();
        source.prepare('VACUUM INTO ?').run(copyPath);
      } finally {
        source.close();
      }
    }
    const copy = new BetterSqlite3(copyPath);
    // A scratch file: rollback works (the journal is kept in memory), nothing waits for the disk.
    copy.pragma('journal_mode = MEMORY');
    copy.pragma('synchronous = OFF');
    return removingOnClose(copy, folder);
  } catch (error) {
    folder.remove();
    throw error;
  }
};

/**
 * Opens (creating it and its folder when missing) the views database. Views can always be rebuilt from
 * the store, so commits need not wait for the disk (synchronous=NORMAL under WAL).
 */
export const openViewsDatabase = (path: string = DEFAULT_VIEWS_PATH, options: ViewsOptions = {}): Database | StorageFailure => {
  try {
    if (options.readOnly === true && path !== ':memory:') return temporaryCopy(path);
    if (path !== ':memory:') makeFolderOrThrow(dirname(path));
    const views = new BetterSqlite3(path);
    views.pragma('busy_timeout = 5000');
    views.pragma('journal_mode = WAL');
    views.pragma('synchronous = NORMAL');
    // Catching up from empty writes every view's rows: a checkpoint (with its fsyncs) every 40 MB of
    // log instead of SQLite's 4 MB halves what committing the pages costs; live pages are small.
    views.pragma('wal_autocheckpoint = 10000');
    return views;
  } catch (error) {
    return storageFailure(`opening the views database at '${path}' failed: ${describeError(error)}`);
  }
};
