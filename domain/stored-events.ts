import type { RecordedEvent } from './ports/event-store';
import type { InvocationEvent } from './invocation/events';
import type { SchedulerEvent } from './scheduler/events';
import { INVOCATION_STREAM_PREFIX, SCHEDULER_STREAM_PREFIX } from './streams';

/**
 * Projections read events the engine itself wrote and the store already checked as JSON: replay trusts
 * them and does not decode them again (decoding every event would cost the rebuild most of its speed).
 * These guards only pick the aggregate by stream name.
 */

export const asInvocationEvent = (event: RecordedEvent): InvocationEvent | undefined =>
  event.stream.startsWith(INVOCATION_STREAM_PREFIX) ? (event.data as unknown as InvocationEvent) : undefined;

export const asSchedulerEvent = (event: RecordedEvent): SchedulerEvent | undefined =>
  event.stream.startsWith(SCHEDULER_STREAM_PREFIX) ? (event.data as unknown as SchedulerEvent) : undefined;

/**
 * The participant an invocation's opening names, or undefined when its data holds none: the audit reads
 * a store that may have been changed outside the engine, and names such an event instead of failing.
 */
export const openingParticipant = (data: unknown): string | undefined => {
  const portValues = typeof data === 'object' && data !== null ? (data as { readonly port_values?: unknown }).port_values : undefined;
  const participant = typeof portValues === 'object' && portValues !== null ? (portValues as { readonly participant_address?: unknown }).participant_address : undefined;
  return typeof participant === 'string' ? participant : undefined;
};
