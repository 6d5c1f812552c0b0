import type { EventFilter } from '../../domain/ports/event-store';

/** Whether an event passes a subscription's filter (the stores that filter on the client). */
export const passesFilter = (filter: EventFilter | undefined, stream: string, type: string): boolean => {
  if (filter === undefined) return true;
  if (filter.streamPrefixes !== undefined && !filter.streamPrefixes.some((prefix) => stream.startsWith(prefix))) {
    return false;
  }
  if (filter.eventTypePrefixes !== undefined && !filter.eventTypePrefixes.some((prefix) => type.startsWith(prefix))) {
    return false;
  }
  return true;
};
