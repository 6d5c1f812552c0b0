import { Command, Option } from 'commander';
import type { ResolvedEffect } from '../../../domain/invocation';
import { openOperatorEngine } from '../engine';
import { shown } from '../format';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { storeFlagsOf, storeOptions } from '../store-options';
import { EPISODE_HELP } from '../episode-choice';
import type { StoreFlags } from '../workspace';

export interface ResolveOptions extends StoreFlags {
  readonly actionInstanceId: string;
  readonly effect: ResolvedEffect;
  readonly evidence: string;
  readonly json: boolean;
  readonly episode?: string;
}

/** Records an operator's resolution of an indeterminate tool action; the scheduler stays stopped until restarted. */
export const runResolve = async (options: ResolveOptions, io: CliIo): Promise<number> => {
  if (options.evidence.trim() === '') {
    io.stderr('raes-tools resolve: --evidence is blank: name the evidence the resolution rests on (a ticket, a log, a report)\n');
    return EXIT_USAGE;
  }
  const engine = await openOperatorEngine('resolve', options);
  if (!engine.ok) {
    io.stderr(`raes-tools resolve: ${engine.message}\n`);
    return engine.exit;
  }
  const { workspace, manager } = engine.value;
  try {
    // Recovery first: after a crash, a dispatched action only becomes indeterminate (resolvable) here.
    await manager.start();
    const result = await manager.resolve(options.actionInstanceId, options.effect, options.evidence);
    await manager.close();
    if (!result.ok) {
      if (options.json) io.stdout(`${JSON.stringify({ resolved: false, code: result.code, message: result.message }, null, 2)}\n`);
      io.stderr(`raes-tools resolve: refused (${result.code}): ${shown(result.message)}\n`);
      return EXIT_INVALID;
    }
    if (options.json) {
      io.stdout(`${JSON.stringify({ resolved: true, action_instance_id: options.actionInstanceId, effect: options.effect, evidence_ref: options.evidence }, null, 2)}\n`);
    } else {
      io.stdout(
        `resolved ${shown(options.actionInstanceId)}: effect ${options.effect}, evidence ${shown(options.evidence)}\n` +
          'the participant\'s scheduler stays stopped until `raes-tools scheduler restart <participant>`\n',
      );
    }
    return EXIT_OK;
  } catch (error) {
    io.stderr(`raes-tools resolve: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_INVALID;
  } finally {
    await workspace.close();
  }
};

export const registerResolve = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const command = program
    .command('resolve')
    .description('record an operator\'s resolution of an indeterminate tool action (whether its effect happened, and the evidence)')
    .argument('<action-id>', 'tool action id, <invocation>:tool=<n>')
    .addOption(new Option('--effect <effect>', 'what the operator established').choices(['happened', 'absent']).makeOptionMandatory())
    .requiredOption('--evidence <ref>', 'reference to the evidence the operator relied on')
    .option('--episode <id>', 'the episode of the tool action (default: the only one the store holds)')
    .option('--json', 'print the result as JSON');
  storeOptions(command)
    .addHelpText('after', `\n${EPISODE_HELP}\nIt takes the data dir writer lock and runs recovery of the episode first. Exit codes: 0 resolved, 1 refused (not indeterminate, already resolved, unknown) or the store failed or an unknown episode, 2 usage error.`)
    .action(async (actionInstanceId: string, opts: { effect: ResolvedEffect; evidence: string; episode?: string; json?: boolean; store?: string; dataDir?: string }) => {
      setExit(
        await runResolve(
          {
            actionInstanceId,
            effect: opts.effect,
            evidence: opts.evidence,
            ...storeFlagsOf(opts),
            ...(opts.episode === undefined ? {} : { episode: opts.episode }),
          },
          io,
        ),
      );
    });
};
