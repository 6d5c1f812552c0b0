import { readdirSync, readFileSync } from 'node:fs';

/** The pids of live processes whose arguments `matches` (a zombie has no command line left). */
export const liveProcesses = (matches: (args: readonly string[]) => boolean): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return matches(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0'));
      } catch {
        return false;
      }
    })
    .map(Number);

/** Whether `holds` comes true within `ms`, asked every 50 ms. */
export const until = async (holds: () => boolean, ms = 5_000): Promise<boolean> => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 50))) if (holds()) return true;
  return holds();
};
