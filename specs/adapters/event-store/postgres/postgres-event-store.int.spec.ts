import { Client } from 'pg';
import { openPostgresEventStore, type PostgresEventStore } from '../../../../adapters/event-store/postgres/postgres-event-store';
import { describeEventStoreContract } from '../support/event-store-contract';
import { startPostgresServer, type PostgresServer } from './support/postgres-server';

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgresServer();
}, 120_000);
afterAll(async () => server?.stop(), 60_000);

const open = (): PostgresEventStore => openPostgresEventStore({ connectionString: server.url, poolSize: 4 });

describeEventStoreContract('postgres', {
  open: async () => open(),
  reopen: async (previous) => {
    await previous.close();
    return open();
  },
});
