#!/usr/bin/env node
import { cleanUpBeforeEndingSignals } from '../processes/process-exit';
import { runCli } from './program';

cleanUpBeforeEndingSignals();

// A reader that stops early (`raes-tools export | head`) closes the pipe: that ends the output, it is no failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (cause: unknown) => {
    // Only a defect of the tool itself reaches here; user mistakes are diagnostics.
    process.stderr.write(`raes-tools: internal error: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}\n`);
    process.exitCode = 70;
  },
);
