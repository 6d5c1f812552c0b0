import { readSync } from 'node:fs';
import { JsonItemSplitter, type JsonItem } from './json-items';

/**
 * Reads the items of a JSON array or object that lies in a byte range of an open file, a piece at a
 * time: the memory it takes is one piece and the largest item, never the whole range.
 */

export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

const PIECE = 1 << 20;

/** The bytes of [start, end) of the file. */
export const readRange = (fd: number, range: ByteRange): Buffer => {
  const bytes = Buffer.allocUnsafe(range.end - range.start);
  let read = 0;
  while (read < bytes.length) {
    const got = readSync(fd, bytes, read, bytes.length - read, range.start + read);
    if (got === 0) throw new Error(`the file ended at byte ${range.start + read}, before byte ${range.end}`);
    read += got;
  }
  return bytes;
};

/** The bytes of `item` out of the pieces held, each piece with the offset of its first byte. */
const bytesOf = (held: readonly { readonly at: number; readonly bytes: Buffer }[], item: JsonItem): Buffer => {
  const parts: Buffer[] = [];
  for (const piece of held) {
    const from = Math.max(item.start, piece.at);
    const to = Math.min(item.end, piece.at + piece.bytes.length);
    if (from < to) parts.push(piece.bytes.subarray(from - piece.at, to - piece.at));
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
};

/**
 * Calls `visit` with each item of the container in `range` and, when `withBytes`, the item's bytes;
 * returns which container it was. Throws JsonFramingError when the range is not one array or object.
 */
export const forEachItem = (
  fd: number,
  range: ByteRange,
  withBytes: boolean,
  visit: (item: JsonItem, bytes: Buffer | undefined) => void,
  pieceSize = PIECE,
): 'array' | 'object' => {
  const splitter = new JsonItemSplitter(range.start);
  let held: { readonly at: number; readonly bytes: Buffer }[] = [];
  for (let at = range.start; at < range.end; ) {
    const piece = readRange(fd, { start: at, end: Math.min(range.end, at + pieceSize) });
    if (withBytes) held.push({ at, bytes: piece });
    for (const item of splitter.feed(piece)) visit(item, withBytes ? bytesOf(held, item) : undefined);
    at += piece.length;
    if (withBytes) {
      const needed = splitter.neededFrom;
      held = held.filter((kept) => kept.at + kept.bytes.length > needed);
    }
  }
  splitter.finish();
  return splitter.container!;
};
