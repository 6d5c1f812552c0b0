import { Command, Option } from 'commander';
import type { StoreFlags } from './workspace';

/** What commander parsed of the store flags and --json. */
export type StoreFlagInput = {
  readonly json?: boolean;
  readonly store?: string;
  readonly dataDir?: string;
  readonly postgresUrl?: string;
};

export type StoreFlagsWithJson = StoreFlags & { readonly json: boolean };

/** The store flags a command was given, leaving out those it was not, and whether it prints JSON. */
export const storeFlagsOf = (opts: StoreFlagInput): StoreFlagsWithJson => ({
  json: opts.json === true,
  ...(opts.store === undefined ? {} : { store: opts.store }),
  ...(opts.dataDir === undefined ? {} : { dataDir: opts.dataDir }),
  ...(opts.postgresUrl === undefined ? {} : { postgresUrl: opts.postgresUrl }),
});

/** The flags every command that reads or writes the engine's state takes. */
export const storeOptions = (command: Command): Command =>
  command
    .addOption(
      new Option('--store <kind>', 'event store: sqlite, memory, eventstoredb or postgres (env RAES_EVENT_STORE; default sqlite)').choices([
        'sqlite',
        'memory',
        'eventstoredb',
        'postgres',
      ]),
    )
    .option('--postgres-url <url>', 'postgres:// connection string of the postgres store (env RAES_POSTGRES_URL)')
    .option('--data-dir <dir>', 'folder of the SQLite store, the views, the job of each episode (jobs/<episode>.json) and the store record (default esdata)');
