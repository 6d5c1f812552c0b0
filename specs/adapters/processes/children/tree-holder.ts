import { spawn } from 'node:child_process';
import { atProcessEnd, cleanUpBeforeEndingSignals } from '../../../../adapters/processes/process-exit';
import { endProcessTree } from '../../../../adapters/processes/process-tree';
import { sleeping } from './sleeping';

/**
 * A process holding a tree of processes it started, set up as the CLI is: a shell running two
 * sleepers, one of them in the background, each with the marker in its arguments. Usage:
 * tree-holder.ts <marker> exit|signal. Prints `started` once the tree is up, then: `exit` calls
 * process.exit(130) when its standard input closes (a second Ctrl-C in `run`); `signal` waits for an
 * ending signal it does not handle itself.
 */
const [marker = 'raes-spec-tree', how] = process.argv.slice(2);
cleanUpBeforeEndingSignals();
const shell = spawn('sh', ['-c', sleeping(marker)], { stdio: 'ignore' });
atProcessEnd(() => endProcessTree(shell.pid!));
setTimeout(() => process.stdout.write('started\n'), 300);
if (how === 'exit') process.stdin.on('end', () => process.exit(130));
process.stdin.resume();
