import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The processes the engine starts (an agent, a command harness's process, an upstream MCP server) may
 * start their own: a wrapper (`sh -c`, `npx`, `uv run`) runs the real agent as its child. Ending only
 * the process the engine started would leave those running, re-parented to init. These functions end
 * the whole tree below a process.
 */

/** The parent id in a /proc/<pid>/stat line: "pid (name) state ppid ...", the name may hold spaces and parentheses. */
const parentInStat = (stat: string): number => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);

/** Every process's parent id, from /proc (Linux) or else `ps`; empty when neither answers. */
const parentsOfAll = (): Map<number, number> => {
  const parents = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    const listed = spawnSync('ps', ['-A', '-o', 'pid=', '-o', 'ppid='], { encoding: 'utf8' });
    for (const line of (listed.stdout ?? '').split('\n')) {
      const [pid, parent] = line.trim().split(/\s+/).map(Number);
      if (pid !== undefined && parent !== undefined && Number.isInteger(pid) && Number.isInteger(parent)) parents.set(pid, parent);
    }
    return parents;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parents.set(Number(entry), parentInStat(readFileSync(`/proc/${entry}/stat`, 'utf8')));
    } catch {
      // It ended while the list was read.
    }
  }
  return parents;
};

/** `root` and every process below it that is alive, parents before their children. */
export const processTree = (root: number): number[] => {
  const children = new Map<number, number[]>();
  const parents = parentsOfAll();
  for (const [pid, parent] of parents) {
    const siblings = children.get(parent);
    if (siblings === undefined) children.set(parent, [pid]);
    else siblings.push(pid);
  }
  if (!parents.has(root)) return [];
  const tree = [root];
  for (let index = 0; index < tree.length; index += 1) tree.push(...(children.get(tree[index]!) ?? []));
  return tree;
};

const send = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
};

/**
 * Ends `root` and every process below it with SIGKILL. Each is stopped first and the tree read again
 * until nothing new shows, so that a child started meanwhile is not missed and none is re-parented
 * away before it is found. Synchronous: it may run as the process exits.
 */
export const endProcessTree = (root: number): void => {
  const stopped: number[] = [];
  const seen = new Set<number>();
  for (let round = 0; round < 5; round += 1) {
    const fresh = processTree(root).filter((pid) => !seen.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      seen.add(pid);
      send(pid, 'SIGSTOP');
      stopped.push(pid);
    }
  }
  // Where no process list answers, the root alone.
  if (!seen.has(root)) stopped.unshift(root);
  for (const pid of stopped) send(pid, 'SIGKILL');
};
