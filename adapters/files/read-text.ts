import { readFile } from 'node:fs/promises';

export type ReadText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly message: string };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The length of the well-formed UTF-8 sequence that starts at `i`, or 0 (the Unicode standard's table
 * of well-formed byte sequences: no overlong forms, no surrogates, nothing above U+10FFFF).
 */
const sequenceLength = (bytes: Uint8Array, i: number): number => {
  const lead = bytes[i] as number;
  const inRange = (offset: number, low = 0x80, high = 0xbf): boolean => {
    const b = bytes[i + offset];
    return b !== undefined && b >= low && b <= high;
  };
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return inRange(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const second = lead === 0xe0 ? inRange(1, 0xa0) : lead === 0xed ? inRange(1, 0x80, 0x9f) : inRange(1);
    return second && inRange(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const second = lead === 0xf0 ? inRange(1, 0x90) : lead === 0xf4 ? inRange(1, 0x80, 0x8f) : inRange(1);
    return second && inRange(2) && inRange(3) ? 4 : 0;
  }
  return 0;
};

/**
 * Decodes UTF-8, keeping each byte that is not part of a well-formed sequence as the lone surrogate
 * U+DC80 to U+DCFF (Python's "surrogateescape"). A replacement character would hide the bad byte; a
 * lone surrogate never comes from UTF-8, so the loaders can refuse the text and say where it went wrong.
 */
export const decodeUtf8 = (bytes: Uint8Array): string => {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const parts: string[] = [];
    let start = 0;
    for (let i = 0; i < bytes.length; ) {
      const length = sequenceLength(bytes, i);
      if (length > 0) {
        i += length;
        continue;
      }
      parts.push(Buffer.from(bytes.buffer, bytes.byteOffset + start, i - start).toString('utf8'), String.fromCharCode(0xdc00 + (bytes[i] as number)));
      i += 1;
      start = i;
    }
    parts.push(Buffer.from(bytes.buffer, bytes.byteOffset + start, bytes.length - start).toString('utf8'));
    return parts.join('');
  }
};

/** Reads a text file (decodeUtf8: bytes that are not UTF-8 stay visible); failures become one sentence naming the file and the reason. */
export const readText = async (path: string, what: string): Promise<ReadText> => {
  try {
    return { ok: true, text: decodeUtf8(await readFile(path)) };
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : cause instanceof Error
              ? cause.message
              : String(cause);
    return { ok: false, message: `cannot read ${what} "${path}": ${reason}` };
  }
};
