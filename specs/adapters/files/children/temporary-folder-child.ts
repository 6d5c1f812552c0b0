import { makeTemporaryFolder } from '../../../../adapters/files/temporary-folder';
import { cleanUpBeforeEndingSignals } from '../../../../adapters/processes/process-exit';

/**
 * A process holding a temporary folder, set up for signals as the CLI is. Usage:
 * temporary-folder-child.ts exit|wait|own-handler. Prints the folder's path, then: `exit` calls
 * process.exit(3); `wait` and `own-handler` exit once their standard input closes, and `own-handler`
 * listens for SIGINT itself, printing `interrupted`.
 */
const [how] = process.argv.slice(2);
cleanUpBeforeEndingSignals();
const folder = makeTemporaryFolder('raes-spec-held-');
process.stdout.write(`${folder.path}\n`);
if (how === 'exit') process.exit(3);
if (how === 'own-handler') process.on('SIGINT', () => process.stdout.write('interrupted\n'));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
