import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A new folder `raes-spec-<name>-XXXXXX` in the system temp dir, removed with all it holds once the spec file
 * is done (by the specs' test environment, scratch-dir-environment.js), whether its tests pass or not.
 */
export const scratchDir = (name: string): string => {
  const made = (globalThis as { raesScratchDirs?: string[] }).raesScratchDirs;
  if (made === undefined) throw new Error('scratchDir needs the test environment of jest.config.js, which removes the folders it makes');
  const dir = mkdtempSync(join(tmpdir(), `raes-spec-${name}-`));
  made.push(dir);
  return dir;
};
