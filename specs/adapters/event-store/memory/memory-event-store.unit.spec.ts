import { MemoryEventStore } from '../../../../adapters/event-store/memory/memory-event-store';
import { describeEventStoreContract } from '../support/event-store-contract';

describeEventStoreContract('memory', {
  open: async () => new MemoryEventStore(),
  // Memory does not outlive its process: a restart here is a new subscription on the same store.
  reopen: async (previous) => previous,
});
