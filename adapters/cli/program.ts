import { Command, CommanderError } from 'commander';
import { registerValidate } from './commands/validate';
import { CliIo, EXIT_OK, EXIT_USAGE } from './io';

/** Builds the CLI; each command lives in its own module under commands/. */
export const buildProgram = (io: CliIo, setExit: (code: number) => void): Command => {
  const program = new Command()
    .name('raes-tools')
    .description('Admit, record and audit the tool calls of autonomous participant invocations (RAES participant-invocation-tool-actions/v1).')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerValidate(program, io, setExit);
  for (const command of program.commands) command.exitOverride();
  return program;
};

/** Runs the CLI on argv (without node and script); resolves to the exit code. */
export const runCli = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
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
    throw cause;
  }
};
