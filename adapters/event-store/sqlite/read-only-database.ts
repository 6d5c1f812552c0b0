import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import BetterSqlite3, { type Database } from 'better-sqlite3';

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
 * connection kept it in WAL mode, by an older version) cannot be read in place without creating the side
 * files: it is read whole into memory instead, and that copy does not see later writes.
 */

const WAL_HEADER_VERSION = 2;
const ROLLBACK_HEADER_VERSION = 1;

/** Bytes 18 and 19 of the header say WAL (2); an in-memory database cannot be in WAL mode. */
const asRollbackJournal = (image: Buffer): Buffer => {
  if (image.length >= 20 && image[18] === WAL_HEADER_VERSION && image[19] === WAL_HEADER_VERSION) {
    image[18] = ROLLBACK_HEADER_VERSION;
    image[19] = ROLLBACK_HEADER_VERSION;
  }
  return image;
};

const writerPresent = (path: string): boolean => existsSync(`${path}-wal`);

/** Whether the file's header says WAL; an empty or short file is not a WAL database. */
const headerSaysWal = (path: string): boolean => {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    const read = readSync(fd, header, 0, header.length, 0);
    return read === header.length && (header[18] === WAL_HEADER_VERSION || header[19] === WAL_HEADER_VERSION);
  } finally {
    closeSync(fd);
  }
};

const signature = (path: string): string => {
  const stat = statSync(path);
  return `${stat.size}:${stat.mtimeMs}`;
};

const MAX_COPY_ATTEMPTS = 5;

const copyOfMainFile = (path: string): Buffer | undefined => {
  for (let attempt = 0; attempt < MAX_COPY_ATTEMPTS; attempt += 1) {
    const before = signature(path);
    const image = readFileSync(path);
    if (!writerPresent(path) && signature(path) === before) return image;
    if (writerPresent(path)) return undefined;
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
  const image = copyOfMainFile(path);
  return image === undefined ? openInPlace(path) : new BetterSqlite3(asRollbackJournal(image));
};

export const openReadOnlyDatabase = (path: string): Database => openInPlaceOrCopy(path);
