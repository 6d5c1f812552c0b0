import { createWriteStream, existsSync, renameSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CliIo } from './io';

/** Where an export's text goes, in order; `finish` makes it final, `abandon` leaves nothing half-written. */
export interface ExportSink {
  write(text: string): Promise<void>;
  finish(): Promise<void>;
  abandon(): Promise<void>;
}

export const stdoutSink = (io: CliIo): ExportSink => ({
  write: async (text) => io.stdout(text),
  finish: async () => undefined,
  abandon: async () => undefined,
});

const ended = (stream: WriteStream): Promise<void> =>
  new Promise((done, failed) => {
    stream.once('error', failed);
    stream.end(() => done());
  });

/**
 * Writes to `<file>.partial`, waiting whenever the stream's buffer is full, and renames it to `file`
 * once the export is complete: a failed export never leaves a file that looks whole.
 */
const fileSink = (file: string): ExportSink => {
  const partial = `${file}.partial`;
  const stream = createWriteStream(partial);
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  const check = (): void => {
    if (failure !== undefined) throw new Error(`writing ${partial} failed: ${failure.message}`);
  };
  return {
    write: async (text) => {
      check();
      if (!stream.write(text)) {
        await new Promise<void>((drained) => {
          const done = (): void => {
            stream.off('drain', done);
            stream.off('error', done);
            drained();
          };
          stream.once('drain', done);
          stream.once('error', done);
        });
      }
      check();
    },
    finish: async () => {
      await ended(stream);
      check();
      renameSync(partial, file);
    },
    abandon: async () => {
      // The file is opened asynchronously: only once the stream has closed is it there to remove.
      if (!stream.closed) {
        await new Promise<void>((closed) => {
          stream.once('close', () => closed());
          stream.destroy();
        });
      }
      rmSync(partial, { force: true });
    },
  };
};

export type SinkOpened = { readonly ok: true; readonly sink: ExportSink } | { readonly ok: false; readonly message: string };

/** `-` is stdout; a file must be in a folder that exists and must not be a folder itself. */
export const openSink = (out: string, io: CliIo): SinkOpened => {
  if (out === '-') return { ok: true, sink: stdoutSink(io) };
  const file = resolve(out);
  if (!existsSync(dirname(file)) || !statSync(dirname(file)).isDirectory()) {
    return { ok: false, message: `--out ${out}: the folder ${dirname(file)} does not exist; create it or write elsewhere (\`--out -\` is stdout)` };
  }
  if (existsSync(file) && statSync(file).isDirectory()) {
    return { ok: false, message: `--out ${out} is a folder; name a file in it, e.g. --out ${out.replace(/\/$/, '')}/history.jsonl` };
  }
  return { ok: true, sink: fileSink(file) };
};
