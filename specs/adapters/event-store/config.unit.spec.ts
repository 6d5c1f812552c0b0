import { eventStoreSettingsFromEnv, parseEventStoreSettings } from '../../../adapters/event-store/config';

describe('choosing the event store', () => {
  it('defaults to SQLite in esdata/', () => {
    expect(parseEventStoreSettings({})).toEqual({ kind: 'parsed', config: { kind: 'sqlite', path: 'esdata/events.sqlite' } });
    expect(parseEventStoreSettings({ store: '  ' })).toMatchObject({ config: { kind: 'sqlite' } });
  });

  it('takes the SQLite path, memory, and an EventStoreDB connection string', () => {
    expect(parseEventStoreSettings({ store: 'sqlite', sqlitePath: '/var/lib/raes/events.sqlite' })).toEqual({
      kind: 'parsed',
      config: { kind: 'sqlite', path: '/var/lib/raes/events.sqlite' },
    });
    expect(parseEventStoreSettings({ store: 'memory' })).toEqual({ kind: 'parsed', config: { kind: 'memory' } });
    expect(parseEventStoreSettings({ store: 'eventstoredb', esdbConnectionString: 'esdb://a:2113,b:2113?tls=true' })).toEqual({
      kind: 'parsed',
      config: { kind: 'eventstoredb', connectionString: 'esdb://a:2113,b:2113?tls=true' },
    });
  });

  it('names the setting to fix when the value is unknown or the connection string is missing', () => {
    expect(parseEventStoreSettings({ store: 'mysql' }, '--store')).toEqual({
      kind: 'rejected',
      message: "expected one of sqlite, memory, eventstoredb, postgres at --store, got 'mysql'",
    });
    expect(parseEventStoreSettings({ store: 'eventstoredb' })).toMatchObject({
      kind: 'rejected',
      message: expect.stringContaining('at ESDB_CONNECTION_STRING (required when RAES_EVENT_STORE is eventstoredb), got nothing'),
    });
  });

  it('reads RAES_EVENT_STORE, RAES_SQLITE_PATH and ESDB_CONNECTION_STRING from the environment', () => {
    expect(
      eventStoreSettingsFromEnv({ RAES_EVENT_STORE: 'sqlite', RAES_SQLITE_PATH: 'x.sqlite', ESDB_CONNECTION_STRING: 'esdb://h' }),
    ).toEqual({ store: 'sqlite', sqlitePath: 'x.sqlite', esdbConnectionString: 'esdb://h' });
  });

  it('takes a postgres connection string and pool size, and names the setting to fix when they are unusable', () => {
    expect(parseEventStoreSettings({ store: 'postgres', postgresUrl: 'postgres://raes@db:5432/events' })).toEqual({
      kind: 'parsed',
      config: { kind: 'postgres', connectionString: 'postgres://raes@db:5432/events', poolSize: 10 },
    });
    expect(
      parseEventStoreSettings({ store: 'postgres', postgresUrl: 'postgresql://raes@db/events', postgresPoolSize: '24' }),
    ).toMatchObject({ config: { poolSize: 24 } });
    expect(parseEventStoreSettings({ store: 'postgres' }, '--store')).toEqual({
      kind: 'rejected',
      message:
        'expected a postgres:// connection string at --postgres-url or RAES_POSTGRES_URL (required when --store is postgres), got nothing',
    });
    expect(parseEventStoreSettings({ store: 'postgres', postgresUrl: 'mysql://raes:hunter2@db/events' })).toEqual({
      kind: 'rejected',
      message: "expected a postgres:// or postgresql:// connection string at --postgres-url or RAES_POSTGRES_URL, got 'mysql://raes:***@db/events'",
    });
    expect(parseEventStoreSettings({ store: 'postgres', postgresUrl: 'postgres://db/e', postgresPoolSize: '0' })).toEqual({
      kind: 'rejected',
      message: "expected a whole number from 1 to 1000 at RAES_POSTGRES_POOL_SIZE, got '0'",
    });
  });

  it('reads RAES_POSTGRES_URL and RAES_POSTGRES_POOL_SIZE from the environment', () => {
    expect(eventStoreSettingsFromEnv({ RAES_POSTGRES_URL: 'postgres://h/db', RAES_POSTGRES_POOL_SIZE: '4' })).toMatchObject({
      postgresUrl: 'postgres://h/db',
      postgresPoolSize: '4',
    });
  });
});
