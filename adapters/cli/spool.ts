import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeTemporaryFolder, type TemporaryFolder } from '../files/temporary-folder';

/**
 * Text written now and read back once, from a temporary file: a report whose first line depends on
 * what follows it (totals) is written out as it is produced, and memory does not grow with it.
 */
export class TextSpool {
  private readonly folder: TemporaryFolder;
  private readonly file: string;
  private readonly fd: number;
  private pending = '';
  private empty = true;

  constructor() {
    this.folder = makeTemporaryFolder('raes-tools-');
    this.file = join(this.folder.path, 'spool.txt');
    try {
      this.fd = openSync(this.file, 'w+');
    } catch (error) {
      this.folder.remove();
      throw error;
    }
  }

  get isEmpty(): boolean {
    return this.empty;
  }

  write(text: string): void {
    if (text.length > 0) this.empty = false;
    this.pending += text;
    if (this.pending.length >= 1 << 16) this.flush();
  }

  /** Hands the text back in chunks, in order. */
  drain(onChunk: (text: string) => void): void {
    for (const chunk of this.chunks()) onChunk(chunk);
  }

  /** The text in chunks, in order, each cut on a character's boundary. */
  *chunks(): Generator<string> {
    this.flush();
    const buffer = Buffer.alloc(1 << 16);
    let position = 0;
    let carry = Buffer.alloc(0);
    for (;;) {
      const read = readSync(this.fd, buffer, 0, buffer.length, position);
      if (read === 0) break;
      position += read;
      const bytes = carry.length === 0 ? buffer.subarray(0, read) : Buffer.concat([carry, buffer.subarray(0, read)]);
      // Cut before a partial UTF-8 sequence at the end, so no character is split across chunks.
      let end = bytes.length;
      let back = 0;
      while (back < 3 && end - back - 1 >= 0 && (bytes[end - back - 1]! & 0xc0) === 0x80) back += 1;
      const lead = end - back - 1;
      if (lead >= 0 && bytes[lead]! >= 0xc0) {
        const length = bytes[lead]! >= 0xf0 ? 4 : bytes[lead]! >= 0xe0 ? 3 : 2;
        if (back + 1 < length) end = lead;
      }
      const text = bytes.subarray(0, end).toString('utf8');
      carry = Buffer.from(bytes.subarray(end));
      yield text;
    }
    if (carry.length > 0) yield carry.toString('utf8');
  }

  /** Removes the temporary file. */
  dispose(): void {
    try {
      closeSync(this.fd);
    } finally {
      this.folder.remove();
    }
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    writeSync(this.fd, this.pending);
    this.pending = '';
  }
}
