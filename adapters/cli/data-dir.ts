import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The data directory's existence, checked before any file in it is opened: read-only commands never
 * create it, and writers create it one level at a time from an existing, writable ancestor, because a
 * recursive mkdir under a pseudo file system such as /proc retries forever.
 */
export type DataDirReady = { readonly ok: true } | { readonly ok: false; readonly message: string; readonly usage: boolean };

const kindOf = (path: string): 'directory' | 'other' | 'absent' => {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch {
    return 'absent';
  }
};

/** For commands that read what `run` wrote: the folder must already be there. */
export const requireDataDir = (dataDir: string): DataDirReady => {
  const kind = kindOf(dataDir);
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
  const kind = kindOf(dataDir);
  if (kind === 'directory') return { ok: true };
  const cannot = (why: string): DataDirReady => ({ ok: false, usage: true, message: `cannot create the data directory "${dataDir}": ${why}` });
  if (kind === 'other') return cannot('a file of that name exists');
  const missing: string[] = [];
  let ancestor = resolve(dataDir);
  while (kindOf(ancestor) === 'absent') {
    missing.push(ancestor);
    const parent = dirname(ancestor);
    if (parent === ancestor) return cannot('no part of the path exists');
    ancestor = parent;
  }
  if (kindOf(ancestor) !== 'directory') return cannot(`"${ancestor}" is not a directory`);
  try {
    accessSync(ancestor, constants.W_OK | constants.X_OK);
  } catch {
    return cannot(`"${ancestor}" is not writable`);
  }
  for (let i = missing.length - 1; i >= 0; i -= 1) {
    try {
      mkdirSync(missing[i] as string);
    } catch (error) {
      return cannot((error as Error).message);
    }
  }
  return { ok: true };
};
