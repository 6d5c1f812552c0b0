import fc from 'fast-check';
import { linkMetadataJson, sha256Base64url } from '../../../../domain/integrity/chain';
import { MetadataColumnWriter, metadataOfColumn } from '../../../../adapters/event-store/sqlite/metadata-column';

/** The SQLite store keeps a version-2 link alone as its digests' bytes, and gives back what was written. */
describe('the metadata column', () => {
  const digest = (seed: string): string => sha256Base64url(seed);
  const writer = new MetadataColumnWriter();
  const metadataColumnOf = (text: string | null) => writer.columnOf(text);

  it('keeps a link as tag 2, d and p, and reads it back as the text the chain wrote', () => {
    fc.assert(
      fc.property(fc.string(), fc.option(fc.string(), { nil: null }), (d, p) => {
        const text = linkMetadataJson({ v: 2, digest: digest(d), previous: p === null ? null : digest(p) });
        const column = metadataColumnOf(text);
        expect(column).toBeInstanceOf(Buffer);
        expect((column as Buffer).length).toBe(p === null ? 33 : 65);
        expect((column as Buffer)[0]).toBe(2);
        expect(JSON.stringify(metadataOfColumn(Buffer.from(column as Buffer)))).toBe(text);
      }),
    );
  });

  it('keeps every other metadata as its JSON text', () => {
    const d = digest('d');
    const kept = [
      null,
      '{}',
      `{"raes_chain":{"v":1,"digest":"${'a'.repeat(64)}","previous":null}}`,
      `{"raes_chain":{"v":2,"d":"${d}","p":null},"by":"someone"}`,
      `{"raes_chain":{"v":2,"p":null,"d":"${d}"}}`,
      // A last character with bits the 32 bytes do not hold would not come back as written.
      `{"raes_chain":{"v":2,"d":"${d.slice(0, 42)}B","p":null}}`,
      `{"raes_chain":{"v":2,"d":"${d.slice(0, 42)}=","p":null}}`,
    ];
    for (const text of kept) expect(metadataColumnOf(text)).toBe(text);
    expect(metadataOfColumn('{"by":"someone"}')).toEqual({ by: 'someone' });
    expect(metadataOfColumn(null)).toBeUndefined();
  });

  it('keeps as bytes exactly the texts a link alone is written as, whatever is changed in one', () => {
    // The rule as a regular expression: 43 base64url characters a digest, the last one carrying 4 bits.
    const DIGEST = '[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]';
    const linkAlone = new RegExp(`^\\{"raes_chain":\\{"v":2,"d":"${DIGEST}","p":(?:null|"${DIGEST}")\\}\\}$`);
    const characters = fc.constantFrom(...'AEQgw048Bz_-=+/."{}:,\\ \u00e9\ud83d'.split(''));
    const changed = fc
      .record({ d: fc.string(), p: fc.option(fc.string(), { nil: null }), at: fc.nat(), character: characters, change: fc.constantFrom('replace', 'insert', 'delete', 'none') })
      .map(({ d, p, at, character, change }) => {
        const text = linkMetadataJson({ v: 2, digest: digest(d), previous: p === null ? null : digest(p) });
        const index = at % text.length;
        if (change === 'none') return text;
        const rest = change === 'insert' ? text.slice(index) : text.slice(index + 1);
        return text.slice(0, index) + (change === 'delete' ? '' : character) + rest;
      });
    fc.assert(
      fc.property(changed, (text) => {
        const column = metadataColumnOf(text);
        if (!linkAlone.test(text)) {
          expect(column).toBe(text);
          return;
        }
        expect(column).toBeInstanceOf(Buffer);
        expect(JSON.stringify(metadataOfColumn(Buffer.from(column as Buffer)))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a BLOB it did not write as an unreadable link, which the chain check reports', () => {
    expect(metadataOfColumn(Buffer.from([2, 1, 2, 3]))).toEqual({ raes_chain: { unreadable: 'AgECAw' } });
    expect(metadataOfColumn(Buffer.alloc(65))).toEqual({ raes_chain: { unreadable: Buffer.alloc(65).toString('base64url') } });
  });
});
