import { openEventStoreDbEventStore } from '../../../../adapters/event-store/eventstoredb/eventstoredb-event-store';
import { describeEventStoreContract } from '../support/event-store-contract';
import { isReachable } from './esdb-reachable';

const connectionString = process.env.ESDB_CONNECTION_STRING;
const runnable = connectionString !== undefined && connectionString !== '' && isReachable(connectionString);

if (runnable) {
  describeEventStoreContract('eventstoredb', {
    open: async () => openEventStoreDbEventStore(connectionString!),
    reopen: async (previous) => {
      await previous.close();
      return openEventStoreDbEventStore(connectionString!);
    },
  });
} else {
  process.stdout.write(
    connectionString === undefined || connectionString === ''
      ? 'skipped: set ESDB_CONNECTION_STRING to run the EventStoreDB contract suite\n'
      : `skipped: set ESDB_CONNECTION_STRING to run the EventStoreDB contract suite (no server reachable at ${connectionString})\n`,
  );
  describe.skip('eventstoredb event store contract', () => {
    it('needs a reachable server', () => undefined);
  });
}
