import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TemporaryFolder {
  readonly path: string;
  /** Deletes the folder and everything in it. */
  remove(): void;
}

const inUse = new Set<string>();
let removedOnExit = false;

/**
 * A new folder `<prefix>XXXXXX` in the system temp dir. One still in use when the process exits
 * (`process.exit` on a closed output pipe, say, which runs no `finally`) is removed then; on a signal,
 * see removeTemporaryFoldersOnSignals.
 */
export const makeTemporaryFolder = (prefix: string): TemporaryFolder => {
  if (!removedOnExit) {
    process.on('exit', removeTemporaryFolders);
    removedOnExit = true;
  }
  const path = mkdtempSync(join(tmpdir(), prefix));
  inUse.add(path);
  return {
    path,
    remove: () => {
      inUse.delete(path);
      rmSync(path, { recursive: true, force: true });
    },
  };
};

/** Deletes every temporary folder still in use. */
export const removeTemporaryFolders = (): void => {
  for (const path of inUse) rmSync(path, { recursive: true, force: true });
  inUse.clear();
};

const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * For a program that owns its process (the CLI): Ctrl-C, SIGTERM or SIGHUP that nothing else listens
 * for ends the process as before, by that signal, but removes the temporary folders first (a process
 * ended by a signal's default action emits no 'exit'). Where a command listens for the signal itself
 * (`run`, `serve`, `audit --follow`), the command decides when to end and the folders go at its exit.
 * Call it before any other listener is added: a listener added with `once` is gone by the time the
 * later ones are called.
 */
export const removeTemporaryFoldersOnSignals = (): void => {
  for (const signal of ENDING_SIGNALS) {
    const onSignal = (): void => {
      if (process.listenerCount(signal) > 1) return;
      removeTemporaryFolders();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
};
