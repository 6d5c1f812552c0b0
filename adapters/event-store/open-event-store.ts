import type { EventStoreConfig } from './config';
import { openEventStoreDbEventStore } from './eventstoredb/eventstoredb-event-store';
import { MemoryEventStore } from './memory/memory-event-store';
import type { EventStore, StorageFailure } from '../../domain/ports/event-store';
import { openPostgresEventStore } from './postgres/postgres-event-store';
import { openSqliteEventStore } from './sqlite/sqlite-event-store';

export type EventStoreOpened = { readonly kind: 'opened'; readonly store: EventStore };

/** The store a config names, or the storage failure that kept it from opening. */
export const openEventStore = (config: EventStoreConfig): EventStoreOpened | StorageFailure => {
  switch (config.kind) {
    case 'memory':
      return { kind: 'opened', store: new MemoryEventStore() };
    case 'sqlite': {
      const opened = openSqliteEventStore({ path: config.path });
      return opened.kind === 'storage_failure' ? opened : { kind: 'opened', store: opened };
    }
    case 'eventstoredb':
      return { kind: 'opened', store: openEventStoreDbEventStore(config.connectionString) };
    case 'postgres':
      return {
        kind: 'opened',
        store: openPostgresEventStore({ connectionString: config.connectionString, poolSize: config.poolSize }),
      };
  }
};
