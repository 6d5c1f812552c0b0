import { chmodSync, closeSync, copyFileSync, existsSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { makeTemporaryFolder, type TemporaryFolder } from '../../files/temporary-folder';

/**
 * A SQLite file opened for reading only, without writing a byte beside it. SQLite's read-only mode
 * creates the `-wal` and `-shm` files of a WAL database when no writer has them open (and cannot open
 * it at all in a folder it may not write). The store's writer therefore leaves a closed file in
 * rollback mode (SqliteEventStore.close), and a reader meets one of two cases:
 * - a writer has the file open, or left it after a crash: its `-wal` exists, and the file is opened in
 *   place, read-only; the side files are already there, and only they hold the latest commits;
 * - the file is closed, in rollback mode: it is opened in place, read-only, and SQLite creates nothing.
 * Either way the connection follows a writer that comes or goes later (SQLite reads the journal mode
 * from the header at each read transaction). A WAL file without its `-wal` (closed while another
 * connection kept it in WAL mode, by an older version or another tool) cannot be read in place without
 * creating the side files: it is read from a copy in a temporary folder instead (on disk, so a long
 * history does not fill memory), removed when the connection closes; that copy does not see later writes.
 */

const WAL_HEADER_VERSION = 2;
const ROLLBACK_HEADER_VERSION = 1;

/** Bytes 18 and 19 of the header: 2 for WAL, 1 for a rollback journal. */
const HEADER_VERSION_OFFSET = 18;

/** The copy's header turned to rollback mode, so that it opens read-only without side files. */
const asRollbackJournal = (copyPath: string): void => {
  const fd = openSync(copyPath, 'r+');
  try {
    writeSync(fd, Buffer.from([ROLLBACK_HEADER_VERSION, ROLLBACK_HEADER_VERSION]), 0, 2, HEADER_VERSION_OFFSET);
  } finally {
    closeSync(fd);
  }
};

const writerPresent = (path: string): boolean => existsSync(`${path}-wal`);

/** Whether the file's header says WAL; an empty or short file is not a WAL database. */
const headerSaysWal = (path: string): boolean => {
  const versions = Buffer.alloc(2);
  const fd = openSync(path, 'r');
  try {
    const read = readSync(fd, versions, 0, versions.length, HEADER_VERSION_OFFSET);
    return read === versions.length && (versions[0] === WAL_HEADER_VERSION || versions[1] === WAL_HEADER_VERSION);
  } finally {
    closeSync(fd);
  }
};

const signature = (path: string): string => {
  const stat = statSync(path);
  return `${stat.size}:${stat.mtimeMs}`;
};

const MAX_COPY_ATTEMPTS = 5;

/** Copies the main file to `copyPath`; false when a writer appeared meanwhile (the file is then read in place). */
const copyOfMainFile = (path: string, copyPath: string): boolean => {
  for (let attempt = 0; attempt < MAX_COPY_ATTEMPTS; attempt += 1) {
    const before = signature(path);
    copyFileSync(path, copyPath);
    // The copy keeps the file's mode (read-only, say); it is this process's own, to turn to rollback mode.
    chmodSync(copyPath, 0o600);
    if (!writerPresent(path) && signature(path) === before) return true;
    if (writerPresent(path)) return false;
  }
  throw new Error(`"${path}" kept changing while it was read; try again when its writer is idle`);
};

const openInPlace = (path: string): Database => new BetterSqlite3(path, { readonly: true, fileMustExist: true });

/**
 * A writer closing the file removes its `-wal` a moment before it turns the header back to rollback
 * mode: a reader that looked in between sees a WAL header without a `-wal`, so it looks again shortly.
 */
const SETTLE_ATTEMPTS = 5;
const SETTLE_MS = 20;
const pause = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

const openInPlaceOrCopy = (path: string): Database => {
  for (let attempt = 0; ; attempt += 1) {
    if (writerPresent(path) || !headerSaysWal(path)) return openInPlace(path);
    if (attempt === SETTLE_ATTEMPTS) break;
    pause(SETTLE_MS);
  }
  return openCopy(path);
};

const openCopy = (path: string): Database => {
  const folder = makeTemporaryFolder('raes-store-copy-');
  try {
    const copyPath = join(folder.path, basename(path));
    if (!copyOfMainFile(path, copyPath)) {
      folder.remove();
      return openInPlace(path);
    }
    asRollbackJournal(copyPath);
    return removingOnClose(openInPlace(copyPath), folder);
  } catch (error) {
    folder.remove();
    throw error;
  }
};

export const openReadOnlyDatabase = (path: string): Database => openInPlaceOrCopy(path);

/** The connection, whose closing also removes the temporary folder its file lives in. */
export const removingOnClose = (database: Database, folder: TemporaryFolder): Database => {
  const close = database.close.bind(database);
  database.close = () => {
    try {
      return close();
    } finally {
      folder.remove();
    }
  };
  return database;
};
