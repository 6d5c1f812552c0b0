import { Command } from 'commander';
import type { LeaseHeldElsewhere, RuntimeProgress } from '../../../domain/application';
import { LeasedRuntimeManager } from '../../engine/leased-runtime-manager';
import { openOperatorEngine } from '../engine';
import { invocationLabel, shown, toolTail } from '../format';
import { CliIo, EXIT_INVALID, EXIT_OK } from '../io';
import { describeProgress } from '../progress';
import { EPISODE_HELP } from '../episode-choice';
import { storeFlagsOf, storeOptions } from '../store-options';
import type { StoreFlags } from '../workspace';

export interface RecoveryReport {
  readonly data_dir: string;
  /** The episode recovered: another episode's invocations are never touched. */
  readonly episode_id: string;
  readonly recovered_invocations: readonly { readonly invocation_action_instance_id: string; readonly outcome: string; readonly indeterminate_action_ids: readonly string[] }[];
  readonly settled_tool_actions: readonly { readonly action_instance_id: string; readonly settlement: string }[];
  readonly stopped_schedulers: readonly { readonly participant_address: string; readonly reason: string }[];
  /** On a server store: participants a live engine holds, which it (or its successor) recovers, not this command. */
  readonly held_elsewhere?: readonly LeaseHeldElsewhere[];
}

const formatHeldElsewhere = (held: readonly LeaseHeldElsewhere[] | undefined): string =>
  (held ?? [])
    .map(
      (lease) =>
        `  ${lease.participant_address} runs in engine ${lease.owner} (lease until ${lease.expires_at}): that engine recovers it, or, if it died, the engine that takes its lease after it expires (run \`raes-tools recover\` again then)\n`,
    )
    .join('');

const formatRecovery = (report: RecoveryReport): string => {
  if (report.recovered_invocations.length === 0 && report.settled_tool_actions.length === 0) {
    const held = report.held_elsewhere ?? [];
    if (held.length === 0) return `nothing to recover in episode ${report.episode_id} (${report.data_dir}): no invocation was left open\n`;
    return `nothing to recover in episode ${report.episode_id} (${report.data_dir}) for the participants no other engine holds\n${formatHeldElsewhere(held)}`;
  }
  let text = `recovered in episode ${report.episode_id} (${report.data_dir}):\n`;
  for (const invocation of report.recovered_invocations) {
    text += `  ${invocationLabel(invocation.invocation_action_instance_id)} closed as interrupted (attempt ${invocation.outcome}): ${invocation.invocation_action_instance_id}\n`;
  }
  for (const action of report.settled_tool_actions) {
    const why =
      action.settlement === 'withheld'
        ? 'admitted but never dispatched, so it never ran'
        : action.settlement === 'indeterminate'
          ? 'dispatched with no outcome: its effects are unknown and an operator must resolve it'
          : 'settled';
    text += `  ${toolTail(action.action_instance_id)} of ${invocationLabel(action.action_instance_id.slice(0, action.action_instance_id.lastIndexOf(':tool=')))} settled ${action.settlement}: ${why}\n`;
  }
  for (const scheduler of report.stopped_schedulers) {
    text += `  scheduler of ${scheduler.participant_address} stopped (${shown(scheduler.reason)})\n`;
  }
  text += formatHeldElsewhere(report.held_elsewhere);
  const unresolved = report.recovered_invocations.flatMap((invocation) => invocation.indeterminate_action_ids);
  if (unresolved.length > 0) {
    text += `next: resolve ${unresolved.join(', ')} with \`raes-tools resolve <action id> --effect happened|absent --evidence <ref>\`, then \`raes-tools scheduler restart <participant>\`\n`;
  }
  return text;
};

export const runRecover = async (options: StoreFlags & { readonly json: boolean; readonly episode?: string }, io: CliIo): Promise<number> => {
  const progress: RuntimeProgress[] = [];
  const engine = await openOperatorEngine('recover', options, (event) => progress.push(event));
  if (!engine.ok) {
    io.stderr(`raes-tools recover: ${engine.message}\n`);
    return engine.exit;
  }
  const { workspace, manager, job } = engine.value;
  try {
    await manager.start();
    const heldElsewhere = manager instanceof LeasedRuntimeManager ? manager.heldElsewhere() : [];
    await manager.close();
    const failures = progress.filter((event) => event.kind === 'storage_failure');
    const report: RecoveryReport = {
      data_dir: workspace.dataDir,
      episode_id: job.episode_id,
      recovered_invocations: progress.flatMap((event) =>
        event.kind === 'invocation_closed' && event.recovered
          ? [{ invocation_action_instance_id: event.invocation_action_instance_id, outcome: event.outcome, indeterminate_action_ids: event.indeterminate_action_ids }]
          : [],
      ),
      settled_tool_actions: progress.flatMap((event) =>
        event.kind === 'tool_action_settled' ? [{ action_instance_id: event.action_instance_id, settlement: event.settlement }] : [],
      ),
      stopped_schedulers: progress.flatMap((event) =>
        event.kind === 'scheduler_stopped' ? [{ participant_address: event.participant_address, reason: event.reason }] : [],
      ),
      ...(heldElsewhere.length === 0 ? {} : { held_elsewhere: heldElsewhere }),
    };
    io.stdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatRecovery(report));
    for (const failure of failures) io.stderr(`raes-tools recover: ${describeProgress(failure).trim()}\n`);
    return failures.length > 0 ? EXIT_INVALID : EXIT_OK;
  } catch (error) {
    io.stderr(`raes-tools recover: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_INVALID;
  } finally {
    await workspace.close();
  }
};

export const registerRecover = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const command = program
    .command('recover')
    .description('settle and close what an interrupted run left open (withheld if never dispatched, indeterminate if dispatched) and report it')
    .option('--episode <id>', 'the episode to recover (default: the only one the store holds); no other episode is touched')
    .option('--json', 'print the report as JSON');
  storeOptions(command)
    .addHelpText('after', `\n${EPISODE_HELP} Recovery of one episode never touches another's invocations.\nIt takes the data dir writer lock and runs recovery first. Exit codes: 0 done, 1 the store failed or an unknown episode, 2 usage error.`)
    .action(async (opts: { episode?: string; json?: boolean; store?: string; dataDir?: string }) => {
      setExit(
        await runRecover(
          { ...storeFlagsOf(opts), ...(opts.episode === undefined ? {} : { episode: opts.episode }) },
          io,
        ),
      );
    });
};
