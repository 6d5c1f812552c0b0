export * from '../../domain/ports/event-store';
export * from './config';
export { openEventStore, type EventStoreOpened } from './open-event-store';
export { MemoryEventStore } from './memory/memory-event-store';
export { SqliteEventStore, openSqliteEventStore, DEFAULT_SQLITE_PATH } from './sqlite/sqlite-event-store';
export { EventStoreDbEventStore, openEventStoreDbEventStore } from './eventstoredb/eventstoredb-event-store';
export { PostgresEventStore, openPostgresEventStore, DEFAULT_POSTGRES_POOL_SIZE } from './postgres/postgres-event-store';
export { storageFailure, describeError } from '../../domain/ports/storage-failure';
export { passesFilter } from './event-filter';
