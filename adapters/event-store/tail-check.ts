import type * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { InvocationEventCodec } from '../../domain/invocation';
import { SchedulerEventCodec } from '../../domain/scheduler/events';
import { LeaseEventCodec } from '../../domain/lease';
import { INVOCATION_STREAM_PREFIX, LEASE_STREAM_PREFIX, SCHEDULER_STREAM_PREFIX } from '../../domain/streams';
import { HistorySealedCodec, SEAL_STREAM } from '../../domain/integrity/seal';
import { STORE_IDENTITY_STREAM, StoreIdentifiedCodec } from './store-identity';
import type { TailEvent, TailReadable } from './store-tail';

/**
 * Before a writer appends, the store must be readable to its end: its tables answer and its last
 * event decodes as the event the engine wrote there. A store whose tail is damaged is refused before
 * anything is appended after it, since what follows would build on a history nobody can read.
 */
export type TailChecked =
  | { readonly kind: 'readable'; readonly lastPosition: bigint | undefined }
  /** The store did not answer the read (unreachable, refused, damaged tables): `reason` is its own. */
  | { readonly kind: 'unavailable'; readonly reason: string; readonly lastPosition: undefined }
  /** The last event was found but does not decode as the event the engine wrote there. */
  | { readonly kind: 'unreadable'; readonly reason: string; readonly lastPosition: bigint };

const codecOf = (stream: string): t.Decoder<unknown, unknown> | undefined => {
  if (stream.startsWith(INVOCATION_STREAM_PREFIX)) return InvocationEventCodec;
  if (stream.startsWith(SCHEDULER_STREAM_PREFIX)) return SchedulerEventCodec;
  if (stream.startsWith(LEASE_STREAM_PREFIX)) return LeaseEventCodec;
  if (stream === STORE_IDENTITY_STREAM) return StoreIdentifiedCodec;
  if (stream === SEAL_STREAM) return HistorySealedCodec;
  return undefined;
};

const problemOf = (last: TailEvent): string | undefined => {
  const codec = codecOf(last.stream);
  if (codec === undefined) return `it is in stream '${last.stream}', which the engine never writes (is this the engine's store?)`;
  let data: unknown;
  try {
    data = last.data();
  } catch {
    return 'its data is not JSON';
  }
  const decoded = codec.decode(data);
  // The union's own message spells every member; what the operator needs is that it is not one of them.
  if (isLeft(decoded)) return `its data (recorded type '${last.type.slice(0, 80)}') is not an event the engine writes in stream '${last.stream.slice(0, 200)}'`;
  const declared = (decoded.right as { readonly type?: unknown }).type;
  if (declared !== last.type) return `its recorded type '${last.type}' is not the type of its data ('${String(declared)}')`;
  return undefined;
};

export const checkTail = async (store: TailReadable): Promise<TailChecked> => {
  const read = await store.readLast();
  if (read.kind === 'storage_failure') return { kind: 'unavailable', reason: read.reason, lastPosition: undefined };
  if (read.last === undefined) return { kind: 'readable', lastPosition: undefined };
  const problem = problemOf(read.last);
  if (problem !== undefined) {
    return { kind: 'unreadable', reason: `its last event (position ${read.last.position}) cannot be read: ${problem}`, lastPosition: read.last.position };
  }
  return { kind: 'readable', lastPosition: read.last.position };
};
