import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeUtf8, readText } from '../../../adapters/files/read-text';
import { scratchDir } from '../../support/scratch-dir';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

describe('decoding a file as UTF-8', () => {
  it('decodes UTF-8 as is, byte-order mark included', () => {
    expect(decodeUtf8(Buffer.from('\uFEFFname: café ✓ 😀\n', 'utf8'))).toBe('\uFEFFname: café ✓ 😀\n');
  });

  it('keeps each byte that is not UTF-8 as a lone surrogate, not as U+FFFD', () => {
    // "café" in Latin-1, then a valid é.
    expect(decodeUtf8(bytes(0x63, 0x61, 0x66, 0xe9, 0x20, 0xc3, 0xa9))).toBe('caf\uDCE9 é');
  });

  it.each([
    ['an overlong form', [0xc0, 0xaf], '\uDCC0\uDCAF'],
    ['an encoded surrogate', [0xed, 0xa0, 0x80], '\uDCED\uDCA0\uDC80'],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], '\uDCF4\uDC90\uDC80\uDC80'],
    ['a truncated sequence', [0x61, 0xe2, 0x9c], 'a\uDCE2\uDC9C'],
  ])('flags %s', (_what, values, expected) => {
    expect(decodeUtf8(bytes(...values))).toBe(expected);
  });
});

describe('readText', () => {
  it('reads a Latin-1 file so that its bad byte stays visible', async () => {
    const path = join(scratchDir('read-text'), 'latin1.yaml');
    writeFileSync(path, Buffer.from([0x6e, 0x3a, 0x20, 0xe9, 0x0a]));
    expect(await readText(path, 'scenario file')).toEqual({ ok: true, text: 'n: \uDCE9\n' });
  });
});
