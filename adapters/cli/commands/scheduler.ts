import { Command } from 'commander';
import { listSchedulers, type SchedulerStatus } from '../../../projections';
import { catchUpViews } from '../audit-report';
import { chooseEpisode, EPISODE_HELP } from '../episode-choice';
import { openOperatorEngine } from '../engine';
import { table, timeOfDay, toolTail } from '../format';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { storeFlagsOf, storeOptions, type StoreFlagsWithJson } from '../store-options';
import { openWorkspace } from '../workspace';

type Flags = StoreFlagsWithJson & { readonly episode?: string };

export const runSchedulerRestart = async (participant: string, options: Flags, io: CliIo): Promise<number> => {
  const engine = await openOperatorEngine('scheduler restart', options);
  if (!engine.ok) {
    io.stderr(`raes-tools scheduler restart: ${engine.message}\n`);
    return engine.exit;
  }
  const { workspace, manager, job } = engine.value;
  try {
    await manager.start();
    const result = await manager.restartScheduler(participant);
    await manager.close();
    if (!result.ok) {
      if (options.json) io.stdout(`${JSON.stringify({ restarted: false, code: result.code, message: result.message }, null, 2)}\n`);
      io.stderr(`raes-tools scheduler restart: refused (${result.code}): ${result.message}\n`);
      return EXIT_INVALID;
    }
    io.stdout(
      options.json
        ? `${JSON.stringify({ restarted: true, participant_address: participant, episode_id: job.episode_id }, null, 2)}\n`
        : `restarted the scheduler of ${participant} in episode ${job.episode_id}: the next \`raes-tools run --episode ${job.episode_id}\` continues its attempts\n`,
    );
    return EXIT_OK;
  } catch (error) {
    io.stderr(`raes-tools scheduler restart: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_INVALID;
  } finally {
    await workspace.close();
  }
};

const row = (scheduler: SchedulerStatus): string[] => [
  scheduler.participant_address,
  scheduler.policy_address,
  scheduler.status,
  scheduler.stopped_by === null ? '-' : `${scheduler.stopped_by.reason} (${toolTail(scheduler.stopped_by.action_instance_id)})`,
  String(scheduler.attempts_started),
  scheduler.unresolved_action_ids.join(', ') || '-',
  timeOfDay(scheduler.updated_at),
];

export const runSchedulerList = async (options: Flags, io: CliIo): Promise<number> => {
  const opened = await openWorkspace(options, { durable: true, readOnly: true });
  if (!opened.ok) {
    io.stderr(`raes-tools scheduler list: ${opened.message}\n`);
    return opened.usage ? EXIT_USAGE : EXIT_INVALID;
  }
  try {
    const caught = await catchUpViews(opened.workspace);
    if (!caught.ok) {
      io.stderr(`raes-tools scheduler list: ${caught.message}\n`);
      return caught.exit;
    }
    const chosen = await chooseEpisode(opened.workspace, options.episode);
    if (!chosen.ok) {
      io.stderr(`raes-tools scheduler list: ${chosen.message}\n`);
      return chosen.exit;
    }
    const schedulers = chosen.value === undefined ? [] : listSchedulers(opened.workspace.views, { episode: chosen.value });
    if (options.json) io.stdout(`${JSON.stringify(schedulers, null, 2)}\n`);
    else if (schedulers.length === 0) io.stdout(`no scheduler has run in ${opened.workspace.dataDir}\n`);
    else io.stdout(table(['participant', 'policy', 'status', 'stopped by', 'attempts', 'unresolved', 'updated'], schedulers.map(row)));
    return EXIT_OK;
  } finally {
    await opened.workspace.close();
  }
};

const withEpisode = (opts: { episode?: string; json?: boolean; store?: string; dataDir?: string }): Flags => ({
  ...storeFlagsOf(opts),
  ...(opts.episode === undefined ? {} : { episode: opts.episode }),
});

export const registerScheduler = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const scheduler = program.command('scheduler').description('participants\' schedulers: list them, restart a stopped one');
  const restart = scheduler
    .command('restart')
    .description('restart a participant\'s stopped schedulers (after its indeterminate tool actions are resolved)')
    .argument('<participant>', 'participant address, e.g. participant.behavior.participant-agent')
    .option('--episode <id>', 'the episode whose scheduler to restart (default: the only one the store holds)')
    .option('--json', 'print the result as JSON');
  storeOptions(restart)
    .addHelpText('after', `\n${EPISODE_HELP}\nIt takes the data dir writer lock and runs recovery of the episode first. Exit codes: 0 restarted, 1 refused (unresolved actions, not stopped, unknown) or the store failed or an unknown episode, 2 usage error.`)
    .action(async (participant: string, opts: { episode?: string; json?: boolean; store?: string; dataDir?: string }) => {
      setExit(await runSchedulerRestart(participant, withEpisode(opts), io));
    });
  const list = scheduler
    .command('list')
    .description('list every scheduler of an episode: running or stopped, and what stopped it')
    .option('--episode <id>', 'the episode whose schedulers to list (default: the only one the store holds)')
    .option('--json', 'print the schedulers as JSON');
  storeOptions(list)
    .addHelpText('after', `\n${EPISODE_HELP}\nExit codes: 0 listed, 1 the store failed or an unknown episode, 2 usage error.`)
    .action(async (opts: { episode?: string; json?: boolean; store?: string; dataDir?: string }) => {
      setExit(await runSchedulerList(withEpisode(opts), io));
    });
};
