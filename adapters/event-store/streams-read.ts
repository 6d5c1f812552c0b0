import type { RecordedEvent, StreamsRead } from '../../domain/ports/event-store';

/**
 * `readStreams`' answer from the events of one query over many streams, in revision order within
 * each stream: every stream asked for is in it, with no events when it has none.
 */
export const streamsRead = (streams: readonly string[], events: Iterable<RecordedEvent>): StreamsRead => {
  const read = new Map<string, RecordedEvent[]>();
  for (const stream of streams) read.set(stream, []);
  for (const event of events) read.get(event.stream)?.push(event);
  return { kind: 'read', streams: read };
};
