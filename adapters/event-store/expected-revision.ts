import type { CurrentRevision, ExpectedRevision } from '../../domain/ports/event-store';

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

/**
 * Where the events of an append would already sit if this append is a retry of one that succeeded:
 * right after the expected revision, or, for `any` and `stream_exists`, at the end of the stream.
 * The store treats the append as already done when the events recorded there carry the same ids,
 * in order. Undefined when the stream cannot hold them there (the normal case: nothing to compare).
 */
export const reappendStartRevision = (
  expected: ExpectedRevision,
  current: CurrentRevision,
  count: number,
): bigint | undefined => {
  if (current === 'no_stream' || count === 0) return undefined;
  const size = BigInt(count);
  let start: bigint;
  switch (expected) {
    case 'no_stream':
      start = 0n;
      break;
    case 'any':
    case 'stream_exists':
      start = current - size + 1n;
      break;
    default:
      start = BigInt(expected) + 1n;
  }
  return start >= 0n && start + size - 1n <= current ? start : undefined;
};
