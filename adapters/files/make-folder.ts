import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Creates a folder and its missing parents one level at a time, below the nearest existing ancestor.
 * Node's recursive mkdir retries forever where mkdir answers ENOENT under an existing parent (a pseudo
 * file system such as /proc): every folder the product creates goes through here instead.
 */
export type FolderMade = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export const pathKind = (path: string): 'directory' | 'other' | 'absent' => {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch {
    return 'absent';
  }
};

/** `mode` applies to the folders created (the process's umask still applies). */
export const makeFolder = (path: string, mode?: number): FolderMade => {
  const kind = pathKind(path);
  if (kind === 'directory') return { ok: true };
  if (kind === 'other') return { ok: false, reason: 'a file of that name exists' };
  const missing: string[] = [];
  let ancestor = resolve(path);
  while (pathKind(ancestor) === 'absent') {
    missing.push(ancestor);
    const parent = dirname(ancestor);
    if (parent === ancestor) return { ok: false, reason: 'no part of the path exists' };
    ancestor = parent;
  }
  if (pathKind(ancestor) !== 'directory') return { ok: false, reason: `"${ancestor}" is not a directory` };
  try {
    accessSync(ancestor, constants.W_OK | constants.X_OK);
  } catch {
    return { ok: false, reason: `"${ancestor}" is not writable` };
  }
  for (let i = missing.length - 1; i >= 0; i -= 1) {
    try {
      mkdirSync(missing[i]!, mode);
    } catch (error) {
      // Made meanwhile by another process: as good.
      if (pathKind(missing[i]!) === 'directory') continue;
      return { ok: false, reason: (error as Error).message };
    }
  }
  return { ok: true };
};

/** makeFolder for callers that report failures as errors. */
export const makeFolderOrThrow = (path: string, mode?: number): void => {
  const made = makeFolder(path, mode);
  if (!made.ok) throw new Error(`cannot create the folder "${path}": ${made.reason}`);
};
