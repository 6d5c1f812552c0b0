import { existsSync, readFileSync, statSync } from 'node:fs';
import BetterSqlite3, { type Database } from 'better-sqlite3';

/**
 * A SQLite file opened for reading only, without writing a byte beside it. SQLite's own read-only
 * mode still creates the `-wal` and `-shm` files of a WAL database (and cannot open it at all in a
 * folder it may not write), so:
 * - while a writer has the file open (its `-wal` exists), the file is opened read-only in place: the
 *   side files are already there, and only they hold the latest commits;
 * - otherwise every commit is in the main file, which is read whole into memory: the copy is taken
 *   again if the file changed or a writer appeared while it was read.
 * `inMemoryCopy` asks for a copy in every case (a database the caller will write to, such as views a
 * read-only command catches up).
 */
export type ReadOnlyOptions = { readonly inMemoryCopy?: boolean };

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

export const openReadOnlyDatabase = (path: string, options: ReadOnlyOptions = {}): Database => {
  if (!writerPresent(path)) {
    const image = copyOfMainFile(path);
    if (image !== undefined) return new BetterSqlite3(asRollbackJournal(image));
  }
  const inPlace = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  if (options.inMemoryCopy !== true) return inPlace;
  try {
    return new BetterSqlite3(asRollbackJournal(inPlace.serialize()));
  } finally {
    inPlace.close();
  }
};
