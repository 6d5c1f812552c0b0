import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeFolder, makeFolderOrThrow } from '../../../adapters/files/make-folder';
import { makeTempDir, type TempDir } from '../event-store/support/temp-dir';

/** Folders are made one level at a time below an existing ancestor: never Node's recursive mkdir, which retries forever under /proc. */
describe('makeFolder', () => {
  let temp: TempDir;
  beforeEach(() => (temp = makeTempDir('make-folder')));
  afterEach(() => temp.remove());

  it('makes the missing folders of a path, each with the mode asked for, and takes an existing folder as made', () => {
    const deep = join(temp.path, 'a', 'b', 'c');
    expect(makeFolder(deep, 0o700)).toEqual({ ok: true });
    for (const folder of [join(temp.path, 'a'), join(temp.path, 'a', 'b'), deep]) expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(makeFolder(deep)).toEqual({ ok: true });
  });

  it('refuses a path where a file stands, or runs through one', () => {
    const file = join(temp.path, 'file');
    writeFileSync(file, '');
    expect(makeFolder(file)).toEqual({ ok: false, reason: 'a file of that name exists' });
    expect(makeFolder(join(file, 'below'))).toEqual({ ok: false, reason: `"${file}" is not a directory` });
  });

  // As root, /proc passes the writable check and mkdir answers ENOENT; as anyone else the check refuses it.
  const underProc = /^(ENOENT: no such file or directory, mkdir '\/proc\/raes-tools-made'|"\/proc" is not writable)$/;

  it('fails at once under /proc, where mkdir answers ENOENT below an existing parent', () => {
    expect(makeFolder('/proc/raes-tools-made/deeper')).toEqual({ ok: false, reason: expect.stringMatching(underProc) });
    expect(() => makeFolderOrThrow('/proc/raes-tools-made')).toThrow(/^cannot create the folder "\/proc\/raes-tools-made": /);
  });
});
