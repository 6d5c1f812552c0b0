import type { EventToAppend } from '../../domain/ports/event-store';

/** The event's data as a store writes it: the caller's JSON text when it has one. */
export const dataTextOf = (event: EventToAppend): string => event.dataJson ?? JSON.stringify(event.data);

/** The event's metadata as a store writes it (null for none), likewise. */
export const metadataTextOf = (event: EventToAppend): string | null =>
  event.metadataJson ?? (event.metadata === undefined ? null : JSON.stringify(event.metadata));
