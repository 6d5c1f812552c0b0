import { ANY, NO_STREAM, STREAM_EXISTS, UnavailableError, WrongExpectedVersionError } from '@eventstore/db-client';
import { fromEsdbError, fromUnsuccessfulAppend } from '../../../../adapters/event-store/eventstoredb/errors';
import { toEsdbEventId } from '../../../../adapters/event-store/eventstoredb/event-ids';
import { toEsdbExpectedRevision } from '../../../../adapters/event-store/eventstoredb/expected-revision';
import { firstEndpoint } from './esdb-reachable';

describe('EventStoreDB expected revision mapping', () => {
  it.each([
    ['any', ANY],
    ['no_stream', NO_STREAM],
    ['stream_exists', STREAM_EXISTS],
    [4, 4n],
    [9n, 9n],
  ] as const)('maps %p to %p', (expected, mapped) => {
    expect(toEsdbExpectedRevision(expected)).toBe(mapped);
  });
});

describe('EventStoreDB error mapping', () => {
  const wrongVersion = (actual: bigint | 'no_stream') => {
    const error = Object.create(WrongExpectedVersionError.prototype) as WrongExpectedVersionError;
    Object.assign(error, { streamName: 's', expectedVersion: 3n, actualVersion: actual });
    return error;
  };

  it('turns a wrong expected version into a conflict carrying the actual revision', () => {
    expect(fromEsdbError(wrongVersion(5n), 's', 3n, 'appending')).toEqual({
      kind: 'version_conflict',
      stream: 's',
      expected: 3n,
      actual: 5n,
    });
    expect(fromEsdbError(wrongVersion('no_stream'), 's', 3n, 'appending')).toMatchObject({ actual: 'no_stream' });
  });

  it('turns anything else into a storage failure that says what was being done', () => {
    const unavailable = Object.create(UnavailableError.prototype) as UnavailableError;
    Object.assign(unavailable, { message: '14 UNAVAILABLE: no connection' });
    expect(fromEsdbError(unavailable, 's', 'any', "appending to 's'")).toEqual({
      kind: 'storage_failure',
      reason: "EventStoreDB: appending to 's' failed: 14 UNAVAILABLE: no connection",
    });
    expect(fromEsdbError(new Error('boom'), 's', 'any', 'reading')).toMatchObject({ kind: 'storage_failure' });
  });
});

describe('EventStoreDB unsuccessful append results', () => {
  it('reads the actual revision, -1 meaning no stream', () => {
    expect(fromUnsuccessfulAppend({ success: false, nextExpectedRevision: 4n }, 's', 2n)).toEqual({
      kind: 'version_conflict',
      stream: 's',
      expected: 2n,
      actual: 4n,
    });
    expect(fromUnsuccessfulAppend({ success: false, nextExpectedRevision: -1n }, 's', 2n)).toMatchObject({
      actual: 'no_stream',
    });
  });
});

describe('EventStoreDB event ids', () => {
  it('keeps UUIDs and maps other ids to the same version-5-layout UUID every time', () => {
    const uuid = '3F2504E0-4F89-41D3-9A0C-0305E82C3301';
    expect(toEsdbEventId(uuid)).toBe(uuid.toLowerCase());
    const mapped = toEsdbEventId('policy:participant:1:tool=2');
    expect(mapped).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(toEsdbEventId('policy:participant:1:tool=2')).toBe(mapped);
    expect(toEsdbEventId('policy:participant:1:tool=3')).not.toBe(mapped);
  });
});

describe('EventStoreDB connection string endpoint', () => {
  it('finds the first node of single-node and cluster strings', () => {
    expect(firstEndpoint('esdb://localhost:2113?tls=false')).toEqual({ host: 'localhost', port: 2113 });
    expect(firstEndpoint('esdb://admin:changeit@node1:2113,node2:2113,node3:2113?tls=true')).toEqual({
      host: 'node1',
      port: 2113,
    });
    expect(firstEndpoint('esdb+discover://cluster.example.com?tls=true')).toEqual({
      host: 'cluster.example.com',
      port: 2113,
    });
    expect(firstEndpoint('http://nope')).toBeUndefined();
  });
});
