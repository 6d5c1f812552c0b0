import { statSync } from 'node:fs';

/** How often a watched file is looked at. */
const EVERY_MS = 1_000;

/**
 * Calls `onReplaced` once if the file at `path` is removed, or replaced by another file (another inode),
 * checking every second: a reader that holds a file open goes on reading the old one, unaware that
 * whoever uses the path now sees another (a data dir emptied and run again, say). Returns the stop.
 */
export const watchFileReplaced = (path: string, onReplaced: (how: 'removed' | 'replaced') => void): (() => void) => {
  const identity = (): string | undefined => {
    try {
      const stat = statSync(path);
      return `${stat.dev}:${stat.ino}`;
    } catch {
      return undefined;
    }
  };
  const first = identity();
  if (first === undefined) return () => undefined;
  const timer = setInterval(() => {
    const now = identity();
    if (now === first) return;
    clearInterval(timer);
    onReplaced(now === undefined ? 'removed' : 'replaced');
  }, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
};
