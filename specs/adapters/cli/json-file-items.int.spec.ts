import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { forEachItem } from '../../../adapters/cli/json-file-items';
import { scratchDir } from '../../support/scratch-dir';

/** A real file read in pieces smaller than its items: each item's bytes come back whole, from anywhere in the file. */
describe('forEachItem over a file', () => {
  const dir = scratchDir('json-file-items');

  it('hands back every element of a list lying between other bytes, however small the pieces', () => {
    const file = join(dir, 'items.json');
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: fc.constantFrom('a', '"', '\\', ']', ',', 'é', '🙂') }), fc.array(fc.integer(), { maxLength: 30 })), { maxLength: 12 }), fc.integer({ min: 1, max: 64 }), (values, pieceSize) => {
        const before = '{"ahead":[1,2],"list":';
        const list = JSON.stringify(values, null, 1);
        writeFileSync(file, `${before}${list},"after":"x"}`);
        const start = Buffer.byteLength(before);
        const fd = openSync(file, 'r');
        try {
          const found: unknown[] = [];
          const container = forEachItem(fd, { start, end: start + Buffer.byteLength(list) }, true, (_item, bytes) => found.push(JSON.parse(bytes!.toString('utf8'))), pieceSize);
          expect(container).toBe('array');
          expect(found).toEqual(values);
        } finally {
          closeSync(fd);
        }
      }),
      { numRuns: 200 },
    );
  });
});
