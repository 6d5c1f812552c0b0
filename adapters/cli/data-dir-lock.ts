import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One writer command per data directory: `run` and the operator commands (which run recovery) would
 * otherwise close each other's live invocations. The lock file names its holder's pid; a lock whose
 * process is gone (a run killed with SIGKILL) is taken over.
 */

export type Locked = { readonly ok: true; release(): void } | { readonly ok: false; readonly message: string };

const LOCK_FILE = 'writer.lock';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const holderOf = (path: string): { pid: number; command: string } | undefined => {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown; command?: unknown };
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, command: typeof parsed.command === 'string' ? parsed.command : 'raes-tools' } : undefined;
  } catch {
    return undefined;
  }
};

export const lockDataDir = (dataDir: string, command: string): Locked => {
  const path = join(dataDir, LOCK_FILE);
  const content = `${JSON.stringify({ pid: process.pid, command, started_at: new Date().toISOString() })}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, content, { flag: 'wx' });
      const release = (): void => {
        process.removeListener('exit', release);
        if (holderOf(path)?.pid === process.pid) {
          try {
            unlinkSync(path);
          } catch {
            // Already gone.
          }
        }
      };
      process.on('exit', release);
      return { ok: true, release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        return { ok: false, message: `cannot lock the data directory "${dataDir}": ${(error as Error).message}` };
      }
      const holder = holderOf(path);
      if (holder !== undefined && holder.pid !== process.pid && alive(holder.pid)) {
        return {
          ok: false,
          message: `${dataDir} is in use by \`${holder.command}\` (pid ${holder.pid}); wait for it to finish, or use another --data-dir`,
        };
      }
      // Left by a process that is gone: take it over.
      try {
        unlinkSync(path);
      } catch {
        // Another command took it over first; the next attempt says so.
      }
    }
  }
  return { ok: false, message: `${dataDir} is being locked by another command; try again` };
};
