import type { OpenedEventStore } from '../../../../adapters/event-store/store-tail';

/**
 * `inner` with its reads of streams (forwards, backwards, many at once) counted, those of the streams
 * `counted` picks (every read when absent): what a spec asserts a store did not read again.
 */
export const countingReads = (
  inner: OpenedEventStore,
  counted: (streams: readonly string[]) => boolean = () => true,
): { readonly store: OpenedEventStore; readonly reads: () => number } => {
  let reads = 0;
  const count = (streams: readonly string[]): void => {
    if (counted(streams)) reads += 1;
  };
  const store: OpenedEventStore = {
    append: (stream, events, options) => inner.append(stream, events, options),
    readStream: (stream, options) => (count([stream]), inner.readStream(stream, options)),
    readStreamBackwards: (stream, options) => (count([stream]), inner.readStreamBackwards(stream, options)),
    readStreams: (streams, options) => (count(streams), inner.readStreams(streams, options)),
    readAll: (options) => inner.readAll(options),
    readLast: () => inner.readLast(),
    subscribe: (options) => inner.subscribe(options),
    close: () => inner.close(),
  };
  return { store, reads: () => reads };
};
