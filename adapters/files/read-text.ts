import { readFile } from 'node:fs/promises';

export type ReadText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly message: string };

/** Reads a UTF-8 file; failures become one sentence naming the file and the reason. */
export const readText = async (path: string, what: string): Promise<ReadText> => {
  try {
    return { ok: true, text: await readFile(path, 'utf8') };
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
