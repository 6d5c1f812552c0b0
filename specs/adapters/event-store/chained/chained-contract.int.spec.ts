import { ChainedEventStore } from '../../../../adapters/event-store/chained-event-store';
import { MemoryEventStore } from '../../../../adapters/event-store/memory/memory-event-store';
import { CHAIN_KEY } from '../../../../domain/integrity/chain';
import type { EventStore } from '../../../../domain/ports/event-store';
import { openSqliteOrThrow } from '../sqlite/open-sqlite';
import { describeEventStoreContract } from '../support/event-store-contract';
import { makeTempDir, type TempDir } from '../support/temp-dir';

// The chain decorator keeps every rule of the port, over memory and over a real SQLite file.
describeEventStoreContract('chained memory', {
  open: async () => new ChainedEventStore(new MemoryEventStore()),
  reopen: async (previous) => previous,
  addedMetadataKey: CHAIN_KEY,
});

let dir: TempDir | undefined;
describeEventStoreContract('chained SQLite', {
  open: async () => {
    dir = makeTempDir('chained-contract');
    return new ChainedEventStore(openSqliteOrThrow(`${dir.path}/events.sqlite`));
  },
  reopen: async (previous: EventStore) => {
    await previous.close();
    return new ChainedEventStore(openSqliteOrThrow(`${dir!.path}/events.sqlite`));
  },
  dispose: async () => {
    dir?.remove();
    dir = undefined;
  },
  addedMetadataKey: CHAIN_KEY,
});
