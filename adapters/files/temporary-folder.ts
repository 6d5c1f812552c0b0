import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atProcessEnd } from '../processes/process-exit';

export interface TemporaryFolder {
  readonly path: string;
  /** Deletes the folder and everything in it. */
  remove(): void;
}

/**
 * A new folder `<prefix>XXXXXX` in the system temp dir. One still in use when the process ends
 * (`process.exit` on a closed output pipe, say, which runs no `finally`, or an ending signal) is removed
 * then (adapters/processes/process-exit.ts).
 */
export const makeTemporaryFolder = (prefix: string): TemporaryFolder => {
  const path = mkdtempSync(join(tmpdir(), prefix));
  const forget = atProcessEnd(() => removeFolder(path));
  return {
    path,
    remove: () => {
      forget();
      removeFolder(path);
    },
  };
};

const removeFolder = (path: string): void => rmSync(path, { recursive: true, force: true });
