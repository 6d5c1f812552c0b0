import type { CurrentRevision, ExpectedRevision } from './port';

/**
 * Whether a stream at `current` satisfies `expected`. Shared by the stores that check revisions
 * themselves (memory, SQLite); EventStoreDB checks on the server.
 */
export const satisfiesExpectedRevision = (expected: ExpectedRevision, current: CurrentRevision): boolean => {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current === 'no_stream';
    case 'stream_exists':
      return current !== 'no_stream';
    default:
      return current !== 'no_stream' && current === BigInt(expected);
  }
};
