import * as t from 'io-ts';
import { DEFAULT_SQLITE_PATH } from './sqlite/sqlite-event-store';

export type EventStoreConfig =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'memory' }
  | { readonly kind: 'eventstoredb'; readonly connectionString: string };

export type EventStoreKind = EventStoreConfig['kind'];

export const EventStoreKindCodec = t.keyof({ sqlite: null, memory: null, eventstoredb: null });

export type ConfigParsed = { readonly kind: 'parsed'; readonly config: EventStoreConfig };
export type ConfigRejected = { readonly kind: 'rejected'; readonly message: string };

/** The settings that choose a store, as the CLI flag and the environment give them. */
export type EventStoreSettings = {
  /** `--store` or RAES_EVENT_STORE: sqlite (default), memory or eventstoredb. */
  readonly store?: string;
  /** RAES_SQLITE_PATH; `esdata/events.sqlite` when absent. */
  readonly sqlitePath?: string;
  /** ESDB_CONNECTION_STRING; required for eventstoredb. */
  readonly esdbConnectionString?: string;
};

const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** Turns the settings into a config or a message naming the setting to fix. The CLI reuses it for --store. */
export const parseEventStoreSettings = (settings: EventStoreSettings, storeSettingName = 'RAES_EVENT_STORE'):
  ConfigParsed | ConfigRejected => {
  const store = present(settings.store) ? settings.store.trim() : 'sqlite';
  if (!EventStoreKindCodec.is(store)) {
    return {
      kind: 'rejected',
      message: `expected one of sqlite, memory, eventstoredb at ${storeSettingName}, got '${store}'`,
    };
  }
  switch (store) {
    case 'memory':
      return { kind: 'parsed', config: { kind: 'memory' } };
    case 'sqlite':
      return {
        kind: 'parsed',
        config: { kind: 'sqlite', path: present(settings.sqlitePath) ? settings.sqlitePath : DEFAULT_SQLITE_PATH },
      };
    case 'eventstoredb':
      if (!present(settings.esdbConnectionString)) {
        return {
          kind: 'rejected',
          message:
            `expected an esdb:// or esdb+discover:// connection string at ESDB_CONNECTION_STRING ` +
            `(required when ${storeSettingName} is eventstoredb), got nothing`,
        };
      }
      return { kind: 'parsed', config: { kind: 'eventstoredb', connectionString: settings.esdbConnectionString } };
  }
};

export const eventStoreSettingsFromEnv = (env: NodeJS.ProcessEnv = process.env): EventStoreSettings => ({
  store: env.RAES_EVENT_STORE,
  sqlitePath: env.RAES_SQLITE_PATH,
  esdbConnectionString: env.ESDB_CONNECTION_STRING,
});
