import * as t from 'io-ts';
import { DEFAULT_POSTGRES_POOL_SIZE } from './postgres/pool-size';
import { DEFAULT_SQLITE_PATH } from './sqlite/sqlite-event-store';

export type EventStoreConfig =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'memory' }
  | { readonly kind: 'eventstoredb'; readonly connectionString: string }
  | { readonly kind: 'postgres'; readonly connectionString: string; readonly poolSize: number };

export type EventStoreKind = EventStoreConfig['kind'];

export const EventStoreKindCodec = t.keyof({ sqlite: null, memory: null, eventstoredb: null, postgres: null });

export type ConfigParsed = { readonly kind: 'parsed'; readonly config: EventStoreConfig };
export type ConfigRejected = { readonly kind: 'rejected'; readonly message: string };

/** The settings that choose a store, as the CLI flag and the environment give them. */
export type EventStoreSettings = {
  /** `--store` or RAES_EVENT_STORE: sqlite (default), memory, eventstoredb or postgres. */
  readonly store?: string;
  /** RAES_SQLITE_PATH; `esdata/events.sqlite` when absent. */
  readonly sqlitePath?: string;
  /** ESDB_CONNECTION_STRING; required for eventstoredb. */
  readonly esdbConnectionString?: string;
  /** `--postgres-url` or RAES_POSTGRES_URL; required for postgres. */
  readonly postgresUrl?: string;
  /** RAES_POSTGRES_POOL_SIZE: connections per engine process; DEFAULT_POSTGRES_POOL_SIZE when absent. */
  readonly postgresPoolSize?: string;
};

const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** Turns the settings into a config or a message naming the setting to fix. The CLI reuses it for --store. */
export const parseEventStoreSettings = (settings: EventStoreSettings, storeSettingName = 'RAES_EVENT_STORE'):
  ConfigParsed | ConfigRejected => {
  const store = present(settings.store) ? settings.store.trim() : 'sqlite';
  if (!EventStoreKindCodec.is(store)) {
    return {
      kind: 'rejected',
      message: `expected one of sqlite, memory, eventstoredb, postgres at ${storeSettingName}, got '${store}'`,
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
    case 'postgres':
      return parsePostgresSettings(settings, storeSettingName);
  }
};

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;
const MAX_POOL_SIZE = 1000;

/** Whether the PostgreSQL client can parse `url`: it reads a connection string as a WHATWG URL, with an empty host allowed. */
const readableAsUrl = (url: string): boolean => {
  for (const candidate of [url, url.replace('@/', '@host/')]) {
    try {
      new URL(candidate, 'postgres://base');
      return true;
    } catch {
      // Not this way.
    }
  }
  return false;
};

const parsePostgresSettings = (settings: EventStoreSettings, storeSettingName: string): ConfigParsed | ConfigRejected => {
  const url = settings.postgresUrl?.trim();
  if (url === undefined || url === '') {
    return {
      kind: 'rejected',
      message:
        `expected a postgres:// connection string at --postgres-url or RAES_POSTGRES_URL ` +
        `(required when ${storeSettingName} is postgres), got nothing`,
    };
  }
  if (!POSTGRES_URL.test(url)) {
    return {
      kind: 'rejected',
      message: `expected a postgres:// or postgresql:// connection string at --postgres-url or RAES_POSTGRES_URL, got '${url.replace(/:[^:@/]*@/, ':***@')}'`,
    };
  }
  if (!readableAsUrl(url)) {
    return {
      kind: 'rejected',
      message: `the connection string at --postgres-url or RAES_POSTGRES_URL cannot be read as a URL, got '${url.replace(/:[^:@/]*@/, ':***@')}': a port is 1 to 65535, and a user or password holding '@', '/' or '#' must be percent-encoded`,
    };
  }
  const poolText = settings.postgresPoolSize?.trim();
  if (poolText === undefined || poolText === '') {
    return { kind: 'parsed', config: { kind: 'postgres', connectionString: url, poolSize: DEFAULT_POSTGRES_POOL_SIZE } };
  }
  const poolSize = Number(poolText);
  if (!/^\d+$/.test(poolText) || poolSize < 1 || poolSize > MAX_POOL_SIZE) {
    return {
      kind: 'rejected',
      message: `expected a whole number from 1 to ${MAX_POOL_SIZE} at RAES_POSTGRES_POOL_SIZE, got '${poolText}'`,
    };
  }
  return { kind: 'parsed', config: { kind: 'postgres', connectionString: url, poolSize } };
};

export const eventStoreSettingsFromEnv = (env: NodeJS.ProcessEnv = process.env): EventStoreSettings => ({
  store: env.RAES_EVENT_STORE,
  sqlitePath: env.RAES_SQLITE_PATH,
  esdbConnectionString: env.ESDB_CONNECTION_STRING,
  postgresUrl: env.RAES_POSTGRES_URL,
  postgresPoolSize: env.RAES_POSTGRES_POOL_SIZE,
});
