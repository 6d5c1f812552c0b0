import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

/**
 * One writer command per data directory: `run` and the operator commands (which run recovery) would
 * otherwise close each other's live invocations.
 *
 * The lock file is never seen incomplete: its content (pid, command, a unique token) is written to a
 * private file first, then hard-linked into place, which fails if a lock exists. A lock whose process
 * is gone (a run killed with SIGKILL) is taken over, but only by the holder of the takeover guard: so two
 * commands can never both judge one lock stale, remove it, and each take its place. The guard is the
 * exclusive lock of a small SQLite file, which the operating system releases when its holder ends, so a
 * command killed mid-takeover leaves nothing to clean up. A lock that cannot be read is reported, never
 * taken.
 */

export type Locked = { readonly ok: true; release(): void } | { readonly ok: false; readonly message: string };

const LOCK_FILE = 'writer.lock';
const GUARD_FILE = 'writer.lock.guard';
/** How long a command waits for another's takeover, which holds the guard for a few file operations. */
const GUARD_WAIT_MS = 2_000;

type Holder = { readonly pid: number; readonly command: string; readonly token: string };
type Read = { readonly kind: 'absent' } | { readonly kind: 'unreadable' } | ({ readonly kind: 'held' } & Holder);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const readHolder = (path: string): Read => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'absent' } : { kind: 'unreadable' };
  }
  try {
    const parsed = JSON.parse(text) as { pid?: unknown; command?: unknown; token?: unknown };
    if (typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid) || parsed.pid <= 0) return { kind: 'unreadable' };
    return {
      kind: 'held',
      pid: parsed.pid,
      command: typeof parsed.command === 'string' ? parsed.command : 'raes-tools',
      token: typeof parsed.token === 'string' ? parsed.token : '',
    };
  } catch {
    return { kind: 'unreadable' };
  }
};

/** Creates `path` with `content` atomically: complete, or not at all when it exists. */
const createExclusive = (path: string, content: string): 'created' | 'exists' => {
  const draft = `${path}.${process.pid}.${randomUUID()}`;
  writeFileSync(draft, content, { flag: 'wx' });
  try {
    linkSync(draft, path);
    return 'created';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    throw error;
  } finally {
    unlinkSync(draft);
  }
};

const removeIfOwn = (path: string, token: string): void => {
  const read = readHolder(path);
  if (read.kind === 'held' && read.token === token) {
    try {
      unlinkSync(path);
    } catch {
      // Already gone.
    }
  }
};

const unreadable = (path: string, dataDir: string): Locked => ({
  ok: false,
  message: `the lock file ${path} is empty or unreadable, so whether a command holds ${dataDir} is unknown; if no raes-tools command is running on it, delete that file and try again`,
});

const inUse = (dataDir: string, holder: Holder): Locked => ({
  ok: false,
  message: `${dataDir} is in use by \`${holder.command}\` (pid ${holder.pid}); wait for it to finish, or use another --data-dir`,
});

/**
 * The takeover guard, held: an exclusive transaction on `writer.lock.guard` (waiting up to
 * GUARD_WAIT_MS for another command's takeover, which holds it for a few file operations). Closing the
 * connection releases it; so does the end of the process, however it ends.
 */
const holdGuard = (dataDir: string): BetterSqlite3.Database | Locked => {
  let guard: BetterSqlite3.Database | undefined;
  try {
    guard = new BetterSqlite3(join(dataDir, GUARD_FILE), { timeout: GUARD_WAIT_MS });
    guard.exec('BEGIN EXCLUSIVE');
    return guard;
  } catch (error) {
    guard?.close();
    const busy = (error as { code?: unknown }).code === 'SQLITE_BUSY';
    return {
      ok: false,
      message: busy
        ? `${dataDir} is being locked by another command; try again`
        : `cannot take over the stale lock of ${dataDir}: ${(error as Error).message}; if no raes-tools command is running on it, delete ${join(dataDir, GUARD_FILE)} and try again`,
    };
  }
};

/**
 * Removes the stale lock of `stale` while holding the takeover guard. Only guard holders remove a lock
 * they do not own, and a dead holder never releases its own, so the lock read under the guard cannot
 * change before it is removed.
 */
const takeOver = (dataDir: string, stale: Holder): Locked | 'removed' => {
  const lockPath = join(dataDir, LOCK_FILE);
  const guard = holdGuard(dataDir);
  if ('ok' in guard) return guard;
  try {
    const current = readHolder(lockPath);
    if (current.kind === 'held' && current.token === stale.token && current.pid === stale.pid) unlinkSync(lockPath);
    return 'removed';
  } finally {
    guard.close();
  }
};

export const lockDataDir = (dataDir: string, command: string): Locked => {
  const path = join(dataDir, LOCK_FILE);
  const token = randomUUID();
  const content = `${JSON.stringify({ pid: process.pid, command, token, started_at: new Date().toISOString() })}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      if (createExclusive(path, content) === 'created') {
        const release = (): void => {
          process.removeListener('exit', release);
          removeIfOwn(path, token);
        };
        process.on('exit', release);
        return { ok: true, release };
      }
    } catch (error) {
      return { ok: false, message: `cannot lock the data directory "${dataDir}": ${(error as Error).message}` };
    }
    const holder = readHolder(path);
    if (holder.kind === 'absent') continue;
    if (holder.kind === 'unreadable') return unreadable(path, dataDir);
    if (holder.pid === process.pid || alive(holder.pid)) return inUse(dataDir, holder);
    const taken = takeOver(dataDir, holder);
    if (taken !== 'removed') return taken;
  }
  return { ok: false, message: `${dataDir} is being locked by another command; try again` };
};
