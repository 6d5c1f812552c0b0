import { Command, Option } from 'commander';

/** The flags every command that reads or writes the engine's state takes. */
export const storeOptions = (command: Command): Command =>
  command
    .addOption(
      new Option('--store <kind>', 'event store: sqlite, memory or eventstoredb (env RAES_EVENT_STORE; default sqlite)').choices([
        'sqlite',
        'memory',
        'eventstoredb',
      ]),
    )
    .option('--data-dir <dir>', 'folder of the SQLite store, the views and the job file (default esdata)');
