import { Command, Option } from 'commander';
import type { StoreFlags } from './workspace';

/** What commander parsed of the store flags and --json. */
export type StoreFlagInput = { readonly json?: boolean; readonly store?: string; readonly dataDir?: string };

export type StoreFlagsWithJson = StoreFlags & { readonly json: boolean };

/** The store flags a command was given, leaving out those it was not, and whether it prints JSON. */
export const storeFlagsOf = (opts: StoreFlagInput): StoreFlagsWithJson => ({
  json: opts.json === true,
  ...(opts.store === undefined ? {} : { store: opts.store }),
  ...(opts.dataDir === undefined ? {} : { dataDir: opts.dataDir }),
});

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
