import { WrongExpectedVersionError, type AppendResult as EsdbAppendResult } from '@eventstore/db-client';
import type { ExpectedRevision, StorageFailure, VersionConflict } from '../../../domain/ports/event-store';
import { describeError, storageFailure } from '../../../domain/ports/storage-failure';

/**
 * The one place client errors become port results: a wrong expected version is a conflict the
 * command handler retries; anything else (unavailable, not leader, deadline, access denied...) is a
 * storage failure the engine reports as `ledger_unavailable`.
 */
export const fromEsdbError = (
  error: unknown,
  stream: string,
  expected: ExpectedRevision,
  doing: string,
): VersionConflict | StorageFailure => {
  if (error instanceof WrongExpectedVersionError) {
    const actual = error.actualVersion;
    return {
      kind: 'version_conflict',
      stream,
      expected,
      actual: typeof actual === 'bigint' ? actual : 'no_stream',
    };
  }
  return storageFailure(`EventStoreDB: ${doing} failed: ${describeError(error)}`);
};

/**
 * With `throwOnAppendFailure=false` in the connection string the client reports a wrong expected
 * version as an unsuccessful result instead of an error; -1 there means the stream does not exist.
 */
export const fromUnsuccessfulAppend = (
  result: EsdbAppendResult,
  stream: string,
  expected: ExpectedRevision,
): VersionConflict => ({
  kind: 'version_conflict',
  stream,
  expected,
  actual: result.nextExpectedRevision < 0n ? 'no_stream' : result.nextExpectedRevision,
});
