import { rmSync } from 'node:fs';
import { scratchDir } from '../../../support/scratch-dir';

export type TempDir = { readonly path: string; readonly remove: () => void };

/** A scratch dir (removed once the spec file is done) that `remove` deletes sooner. */
export const makeTempDir = (label: string): TempDir => {
  const path = scratchDir(label);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
};
