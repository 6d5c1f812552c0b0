import type { EventStoreConfig } from './config';
import { MemoryEventStore } from './memory/memory-event-store';
import type { StorageFailure } from '../../domain/ports/event-store';
import { openSqliteEventStore } from './sqlite/sqlite-event-store';
import type { OpenedEventStore } from './store-tail';

/*
 * The server stores' clients (gRPC for EventStoreDB, pg) are loaded when a config names them, so that a
 * command on the embedded store does not pay for loading them at every start.
 */
const eventStoreDbAdapter = (): typeof import('./eventstoredb/eventstoredb-event-store') =>
  require('./eventstoredb/eventstoredb-event-store') as typeof import('./eventstoredb/eventstoredb-event-store');
const postgresAdapter = (): typeof import('./postgres/postgres-event-store') =>
  require('./postgres/postgres-event-store') as typeof import('./postgres/postgres-event-store');

export type EventStoreOpened = { readonly kind: 'opened'; readonly store: OpenedEventStore };

export type OpenEventStoreOptions = {
  /** For commands that only read: the SQLite file is opened read-only and must exist; PostgreSQL transactions are read-only. */
  readonly readOnly?: boolean;
};

/** The store a config names, or the storage failure that kept it from opening. */
export const openEventStore = (config: EventStoreConfig, options: OpenEventStoreOptions = {}): EventStoreOpened | StorageFailure => {
  switch (config.kind) {
    case 'memory':
      return { kind: 'opened', store: new MemoryEventStore() };
    case 'sqlite': {
      const opened = openSqliteEventStore({ path: config.path, ...(options.readOnly === true ? { readOnly: true } : {}) });
      return opened.kind === 'storage_failure' ? opened : { kind: 'opened', store: opened };
    }
    case 'eventstoredb':
      return { kind: 'opened', store: eventStoreDbAdapter().openEventStoreDbEventStore(config.connectionString) };
    case 'postgres':
      return {
        kind: 'opened',
        store: postgresAdapter().openPostgresEventStore({
          connectionString: config.connectionString,
          poolSize: config.poolSize,
          ...(options.readOnly === true ? { readOnly: true } : {}),
        }),
      };
  }
};
