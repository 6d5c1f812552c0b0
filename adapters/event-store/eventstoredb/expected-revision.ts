import { ANY, NO_STREAM, STREAM_EXISTS, type AppendExpectedRevision } from '@eventstore/db-client';
import type { ExpectedRevision } from '../../../domain/ports/event-store';

/** The one place the port's expected revision becomes the client's. */
export const toEsdbExpectedRevision = (expected: ExpectedRevision): AppendExpectedRevision => {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return BigInt(expected);
  }
};
