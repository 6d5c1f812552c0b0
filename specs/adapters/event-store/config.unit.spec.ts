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
    expect(parseEventStoreSettings({ store: 'postgres' }, '--store')).toEqual({
      kind: 'rejected',
      message: "expected one of sqlite, memory, eventstoredb at --store, got 'postgres'",
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
});
