import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomically } from '../../../adapters/files/write-atomically';
import { makeTempDir, type TempDir } from '../event-store/support/temp-dir';

/** Small state files (a data directory's job files, its store record) are replaced whole, never left half written. */
describe('writeFileAtomically', () => {
  let temp: TempDir;
  beforeEach(() => (temp = makeTempDir('write-atomically')));
  afterEach(() => temp.remove());

  it('writes a new file and replaces an existing one, leaving nothing else beside it', () => {
    const path = join(temp.path, 'job.json');
    writeFileAtomically(path, 'first\n');
    writeFileSync(join(temp.path, 'other'), '');
    writeFileAtomically(path, 'second\n');
    expect(readFileSync(path, 'utf8')).toBe('second\n');
    expect(readdirSync(temp.path).sort()).toEqual(['job.json', 'other']);
  });

  it('throws when the file cannot be written, and leaves no temporary file', () => {
    const path = join(temp.path, 'missing-folder', 'job.json');
    expect(() => writeFileAtomically(path, 'text')).toThrow(/ENOENT/);
    // A folder where the file should go: the rename fails after the temporary file beside it was written.
    writeFileAtomically(join(temp.path, 'keep'), 'x');
    expect(() => writeFileAtomically(temp.path, 'text')).toThrow();
    expect(readdirSync(dirname(temp.path)).filter((name) => name.startsWith(`${basename(temp.path)}.`))).toEqual([]);
    expect(readdirSync(temp.path)).toEqual(['keep']);
  });
});
