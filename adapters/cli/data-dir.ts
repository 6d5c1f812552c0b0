import { makeFolder, pathKind } from '../files/make-folder';

/**
 * The data directory's existence, checked before any file in it is opened: read-only commands never
 * create it, and writers create it one level at a time from an existing, writable ancestor
 * (files/make-folder.ts).
 */
export type DataDirReady = { readonly ok: true } | { readonly ok: false; readonly message: string; readonly usage: boolean };

/** For commands that read what `run` wrote: the folder must already be there. */
export const requireDataDir = (dataDir: string): DataDirReady => {
  const kind = pathKind(dataDir);
  if (kind === 'directory') return { ok: true };
  if (kind === 'other') return { ok: false, usage: true, message: `the data directory "${dataDir}" is not a directory: pass the folder \`raes-tools run\` used (--data-dir)` };
  return {
    ok: false,
    usage: false,
    message: `the data directory "${dataDir}" does not exist: nothing has run there. Check --data-dir, or create it with \`raes-tools run <scenario> --manifest <manifest> --data-dir ${dataDir}\``,
  };
};

/** For writers: creates the folder (and missing parents) below the nearest existing ancestor. */
export const ensureDataDir = (dataDir: string): DataDirReady => {
  const made = makeFolder(dataDir);
  return made.ok ? { ok: true } : { ok: false, usage: true, message: `cannot create the data directory "${dataDir}": ${made.reason}` };
};
