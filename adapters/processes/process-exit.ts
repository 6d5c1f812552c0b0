/**
 * What must be undone however the process ends: temporary folders removed, processes the engine
 * started ended. Each is run once, at 'exit' (a normal end, or `process.exit`, which runs no `finally`),
 * or before an ending signal nothing else handles ends the process (a signal's default action emits no
 * 'exit'). Only SIGKILL skips them.
 */

const cleanups = new Set<() => void>();
let runAtExit = false;

const runCleanups = (): void => {
  for (const cleanup of [...cleanups]) {
    cleanups.delete(cleanup);
    try {
      cleanup();
    } catch {
      // One failing cleanup does not keep the others from running.
    }
  }
};

/** Runs `cleanup` when the process ends, unless the returned function is called first (its work done). */
export const atProcessEnd = (cleanup: () => void): (() => void) => {
  if (!runAtExit) {
    process.on('exit', runCleanups);
    runAtExit = true;
  }
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
};

const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * For a program that owns its process (the CLI): Ctrl-C, SIGTERM or SIGHUP that nothing else listens
 * for ends the process as before, by that signal, after the cleanups. Where a command listens for the
 * signal itself (`run`, `serve`, `audit --follow`), the command decides when to end and the cleanups
 * run at its exit. Call it before any other listener is added: a listener added with `once` is gone by
 * the time the later ones are called.
 */
export const cleanUpBeforeEndingSignals = (): void => {
  for (const signal of ENDING_SIGNALS) {
    const onSignal = (): void => {
      if (process.listenerCount(signal) > 1) return;
      runCleanups();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
};
