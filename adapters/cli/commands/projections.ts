import { Command } from 'commander';
import { FOLLOWED_PROJECTIONS, ProjectionRunner } from '../../../projections';
import { CliIo, EXIT_INVALID, EXIT_OK, EXIT_USAGE } from '../io';
import { storeFlagsOf, storeOptions } from '../store-options';
import { openWorkspace, type StoreFlags } from '../workspace';

/** Every view the engine keeps, the scheduler snapshots recovery restores from among them. */
const NAMES = FOLLOWED_PROJECTIONS.map((projection) => projection.name);

export const runProjectionsRebuild = async (name: string | undefined, options: StoreFlags & { readonly json: boolean }, io: CliIo): Promise<number> => {
  if (name !== undefined && !NAMES.includes(name)) {
    io.stderr(`raes-tools projections rebuild: no projection is named '${name}'; expected one of ${NAMES.join(', ')}\n`);
    return EXIT_USAGE;
  }
  const opened = await openWorkspace(options, { durable: true, writer: 'raes-tools projections rebuild', replaceCorruptViews: true, rebuildsViews: name === undefined });
  if (!opened.ok) {
    io.stderr(`raes-tools projections rebuild: ${opened.message}\n`);
    return opened.usage ? EXIT_USAGE : EXIT_INVALID;
  }
  const workspace = opened.workspace;
  if (workspace.corruptViewsSetAside !== undefined) {
    io.stderr(`raes-tools projections rebuild: the views database was corrupt; it was moved to ${workspace.corruptViewsSetAside} and is rebuilt from the event store\n`);
  }
  try {
    const runner = new ProjectionRunner({ store: workspace.store, views: workspace.views, projections: FOLLOWED_PROJECTIONS });
    const started = Date.now();
    const rebuilt = await runner.rebuild(name, (progress) => io.stderr(`  replayed ${progress.applied} events (position ${progress.position})\n`));
    if (rebuilt.kind === 'storage_failure') {
      io.stderr(`raes-tools projections rebuild: reading the event store failed: ${rebuilt.reason}\n`);
      return EXIT_INVALID;
    }
    if (rebuilt.kind === 'projection_failed') {
      io.stderr(`raes-tools projections rebuild: ${rebuilt.reason}\n`);
      return EXIT_INVALID;
    }
    const report = {
      projections: name === undefined ? NAMES : [name],
      events_replayed: rebuilt.applied,
      position: rebuilt.position === undefined ? null : rebuilt.position.toString(),
      seconds: (Date.now() - started) / 1000,
    };
    io.stdout(
      options.json
        ? `${JSON.stringify(report, null, 2)}\n`
        : `rebuilt ${report.projections.join(', ')} from ${report.events_replayed} events (up to position ${report.position ?? 'none'}) in ${report.seconds.toFixed(2)} s\n`,
    );
    return EXIT_OK;
  } finally {
    await workspace.close();
  }
};

export const registerProjections = (program: Command, io: CliIo, setExit: (code: number) => void): void => {
  const projections = program.command('projections').description('read models built from the event store');
  const rebuild = projections
    .command('rebuild')
    .description('drop a projection\'s rows (every projection\'s without a name) and replay the whole store into it')
    .argument('[name]', `one of ${NAMES.join(', ')}`)
    .option('--json', 'print the result as JSON');
  storeOptions(rebuild)
    .addHelpText(
      'after',
      '\nThe views of a data dir hold every episode of its store, each keyed by its episode: a rebuild replays every episode (there is no --episode).\nProgress goes to stderr. Exit codes: 0 rebuilt, 1 the store or a projection failed, 2 usage error (unknown name).',
    )
    .action(async (name: string | undefined, opts: { json?: boolean; store?: string; dataDir?: string }) => {
      setExit(
        await runProjectionsRebuild(
          name,
          storeFlagsOf(opts),
          io,
        ),
      );
    });
};
