import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type TempDir = { readonly path: string; readonly remove: () => void };

export const makeTempDir = (label: string): TempDir => {
  const path = mkdtempSync(join(tmpdir(), `raes-${label}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
};
