import { existsSync, renameSync, rmSync } from 'node:fs';

/**
 * A views database SQLite cannot read. The views hold nothing the event store cannot rebuild, so the
 * file is set aside (kept for inspection, never deleted) and `projections rebuild` fills a new one.
 */
const CORRUPTION = /file is not a database|database disk image is malformed/;

/** Whether an SQLite file (the views, or the store) failed to open because it is damaged or not an SQLite file at all. */
export const isDamagedSqliteFile = (reason: string): boolean => CORRUPTION.test(reason);

export const corruptViewsMessage = (viewsPath: string, dataDir: string, reason: string): string =>
  `the views database "${viewsPath}" is corrupt (${reason.match(CORRUPTION)?.[0] ?? reason}); it holds only what the event store can rebuild: run \`raes-tools projections rebuild --data-dir ${dataDir}\` to set it aside and rebuild it`;

/** Moves the corrupt file (and its WAL side files, which belong to it) to `<path>.corrupt`; returns that path. */
export const setCorruptViewsAside = (viewsPath: string): string => {
  const aside = `${viewsPath}.corrupt`;
  renameSync(viewsPath, aside);
  for (const side of ['-wal', '-shm']) if (existsSync(`${viewsPath}${side}`)) rmSync(`${viewsPath}${side}`);
  return aside;
};
