import { Command, CommanderError } from 'commander';
import { registerAudit } from './commands/audit';
import { registerDemo } from './commands/demo';
import { registerExport } from './commands/export';
import { registerKeys } from './commands/keys';
import { registerOperations } from './commands/operations';
import { registerProjections } from './commands/projections';
import { registerRecover } from './commands/recover';
import { registerResolve } from './commands/resolve';
import { registerScheduler } from './commands/scheduler';
import { registerRun } from './commands/run';
import { registerValidate } from './commands/validate';
import { registerServe } from './commands/serve';

import { registerTelemetry } from './commands/telemetry';

import { registerVerify } from './commands/verify';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from './io';
import { ForeignEvent, UnreadableEvent } from '../../domain/ports/unreadable-event';

const HELP_AFTER_ERROR = '(run with --help for usage)';

/** Builds the CLI; each command lives in its own module under commands/. */
export const buildProgram = (io: CliIo, setExit: (code: number) => void): Command => {
  const program = new Command()
    .name('raes-tools')
    .description('Admit, record and audit the tool calls of autonomous participant invocations (RAES participant-invocation-tool-actions/v1).')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(HELP_AFTER_ERROR)
    .addHelpText(
      'after',
      '\nNew here? `raes-tools demo` (what `npm start` runs) shows the whole system in one command.\nExit codes: 0 ok, 1 a failed check or a refused operation, 2 a usage error.',
    )
    .exitOverride();
  registerValidate(program, io, setExit);
  registerRun(program, io, setExit);
  registerAudit(program, io, setExit);
  registerServe(program, io, setExit);

  registerExport(program, io, setExit);
  registerKeys(program, io, setExit);
  registerVerify(program, io, setExit);
  registerOperations(program, io, setExit);
  registerRecover(program, io, setExit);
  registerResolve(program, io, setExit);
  registerScheduler(program, io, setExit);
  registerProjections(program, io, setExit);
  registerDemo(program, io, setExit);
  registerTelemetry(program, io, setExit);
  const override = (command: Command): void => {
    command.exitOverride();
    for (const sub of command.commands) override(sub);
  };
  for (const command of program.commands) override(command);
  return program;
};

/** Runs the CLI on argv (without node and script); resolves to the exit code. */
export const runCli = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  if (!argv.includes('--json')) return runCommand(argv, io);
  // A machine asked for JSON: a failure that printed none is given as JSON too (its message stays on stderr).
  let printed = false;
  let lastError = '';
  const code = await runCommand(argv, {
    stdout: (text) => {
      printed = true;
      io.stdout(text);
    },
    stderr: (text) => {
      if (text.trim() !== '' && text.trim() !== HELP_AFTER_ERROR) lastError = text.trim();
      io.stderr(text);
    },
  });
  if (code !== EXIT_OK && !printed) io.stdout(`${JSON.stringify({ error: { exit: code, message: lastError } }, null, 2)}\n`);
  return code;
};

const runCommand = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  let exitCode = EXIT_OK;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    if (argv.length === 0) {
      io.stdout(program.helpInformation());
      return EXIT_USAGE;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (cause) {
    if (cause instanceof CommanderError) return cause.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    if (cause instanceof ForeignEvent) {
      io.stderr(`raes-tools: ${cause.message}\n`);
      return EXIT_INVALID;
    }
    if (cause instanceof UnreadableEvent) {
      io.stderr(`raes-tools: ${cause.message}. Nothing rebuilds the history from there: restore the store from a backup taken before the change.\n`);
      return EXIT_INVALID;
    }
    throw cause;
  }
};
