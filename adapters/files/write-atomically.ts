import { renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes `text` to a temporary file beside `path` and renames it into place, so a reader (or a process
 * started after this one was killed) never finds half a file: it finds the old one or the new one.
 */
export const writeFileAtomically = (path: string, text: string): void => {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
};
