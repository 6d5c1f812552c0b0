import { join } from 'node:path';
import { openEventStore } from '../../../adapters/event-store/open-event-store';
import { MemoryEventStore } from '../../../adapters/event-store/memory/memory-event-store';
import { SqliteEventStore } from '../../../adapters/event-store/sqlite/sqlite-event-store';
import { EventStoreDbEventStore } from '../../../adapters/event-store/eventstoredb/eventstoredb-event-store';
import { PostgresEventStore } from '../../../adapters/event-store/postgres/postgres-event-store';
import { makeTempDir } from './support/temp-dir';

describe('openEventStore', () => {
  it('opens the store each config names', async () => {
    const temp = makeTempDir('open');
    try {
      const sqlite = openEventStore({ kind: 'sqlite', path: join(temp.path, 'events.sqlite') });
      expect(sqlite.kind === 'opened' && sqlite.store instanceof SqliteEventStore).toBe(true);
      if (sqlite.kind === 'opened') await sqlite.store.close();
      const memory = openEventStore({ kind: 'memory' });
      expect(memory.kind === 'opened' && memory.store instanceof MemoryEventStore).toBe(true);
      const esdb = openEventStore({ kind: 'eventstoredb', connectionString: 'esdb://127.0.0.1:1?tls=false' });
      expect(esdb.kind === 'opened' && esdb.store instanceof EventStoreDbEventStore).toBe(true);
      if (esdb.kind === 'opened') await esdb.store.close();
      const postgres = openEventStore({ kind: 'postgres', connectionString: 'postgres://127.0.0.1:1/events', poolSize: 2 });
      expect(postgres.kind === 'opened' && postgres.store instanceof PostgresEventStore).toBe(true);
      if (postgres.kind === 'opened') await postgres.store.close();
    } finally {
      temp.remove();
    }
  });

  it('answers an unreachable EventStoreDB with a storage failure, not an exception', async () => {
    const opened = openEventStore({
      kind: 'eventstoredb',
      connectionString: 'esdb://127.0.0.1:1?tls=false&maxDiscoverAttempts=1&discoveryInterval=10&defaultDeadline=1000',
    });
    if (opened.kind !== 'opened') throw new Error(opened.reason);
    const result = await opened.store.append('s', [{ id: 'a', type: 'T', data: {} }], { expectedRevision: 'any' });
    expect(result).toMatchObject({ kind: 'storage_failure', reason: expect.stringContaining('EventStoreDB: appending') });
    await opened.store.close();
  }, 15_000);
});
