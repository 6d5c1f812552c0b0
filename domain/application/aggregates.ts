import {
  INVOCATION_EVENT_TYPES,
  interruptedInvocationDecider,
  invocationDecider,
  type InterruptedInvocation,
  type RecoverInvocation,
  type InvocationCommand,
  type InvocationEvent,
  type InvocationAnswer,
  type InvocationState,
} from '../invocation';
import {
  SCHEDULER_CHECKPOINTED,
  SCHEDULER_EVENT_TYPES,
  foldedMembersRefusal,
  schedulerDecider,
  type SchedulerCommand,
  type SchedulerEvent,
  type SchedulerRefusal,
  type SchedulerState,
} from '../scheduler';
import { invocationStream, schedulerStream } from '../streams';
import type { EventStore, JsonValue, RecordedEvent } from '../ports/event-store';
import { StreamAggregate, type AggregateKind, type EventCodec, type StreamDecider } from './stream-aggregate';

/** The two aggregates the runtime drives, bound to their streams and wire codecs. */

/**
 * Replay trusts the stored events: each was decided by the engine's own decider, decoded on its way
 * in (port requests, outcomes) and appended by the engine, so decoding it again on every load would
 * only repeat that work (it was most of recovery's read cost). The type tag is checked, so a stream
 * written by something else is refused rather than folded.
 */
export const trustedCodec = <V extends { readonly type: string }>(what: string, types: ReadonlySet<string>): EventCodec<V> => ({
  typeOf: (event) => event.type,
  toData: (event) => event as unknown as JsonValue,
  fromRecorded: (recorded: Pick<RecordedEvent, 'type' | 'data'>) => {
    const data = recorded.data;
    const tag = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as { type?: unknown }).type : undefined;
    if (tag === recorded.type && types.has(recorded.type)) return data as unknown as V;
    return `expected ${what} event whose type tag is its recorded type, got type '${recorded.type}' with tag ${JSON.stringify(tag ?? null)}`;
  },
});

export const invocationEventCodec: EventCodec<InvocationEvent> = trustedCodec('an invocation', new Set(INVOCATION_EVENT_TYPES));
const trustedSchedulerCodec: EventCodec<SchedulerEvent> = trustedCodec('a scheduler', SCHEDULER_EVENT_TYPES);

/**
 * The scheduler's codec: trusted as every stored event is, but the members its fold reads are checked
 * (foldedMembersRefusal): a scheduler loaded from its latest checkpoint takes that state whole.
 */
export const schedulerEventCodec: EventCodec<SchedulerEvent> = {
  ...trustedSchedulerCodec,
  fromRecorded: (recorded) => {
    const event = trustedSchedulerCodec.fromRecorded(recorded);
    return typeof event === 'string' ? event : (foldedMembersRefusal(event) ?? event);
  },
};

/** The scheduler decider accepts or refuses; its answer says which. */
export type SchedulerAnswer = { readonly kind: 'accepted' } | { readonly kind: 'refused'; readonly refusal: SchedulerRefusal };

const SCHEDULER_ACCEPTED: SchedulerAnswer = Object.freeze({ kind: 'accepted' });
const NO_SCHEDULER_EVENTS: readonly SchedulerEvent[] = Object.freeze([]);

const answeringScheduler: StreamDecider<SchedulerState, SchedulerCommand, SchedulerEvent, SchedulerAnswer> = {
  initialState: schedulerDecider.initialState,
  evolve: schedulerDecider.evolve,
  decide: (command, state) => {
    const decision = schedulerDecider.decide(command, state);
    return decision._tag === 'Right'
      ? { events: decision.right, answer: SCHEDULER_ACCEPTED }
      : { events: NO_SCHEDULER_EVENTS, answer: { kind: 'refused', refusal: decision.left } };
  },
};

export type InvocationAggregate = StreamAggregate<InvocationState, InvocationCommand, InvocationEvent, InvocationAnswer>;
/** The same invocation stream folded only as far as recovery reads it (domain/invocation/interrupted.ts). */
export type InterruptedInvocationAggregate = StreamAggregate<InterruptedInvocation, RecoverInvocation, InvocationEvent, InvocationAnswer>;
export type SchedulerAggregate = StreamAggregate<SchedulerState, SchedulerCommand, SchedulerEvent, SchedulerAnswer>;

/** An invocation's key is its stream name: the episode and the invocation id, spelled by domain/streams.ts. */
const invocationKind: AggregateKind<InvocationState, InvocationCommand, InvocationEvent, InvocationAnswer> = {
  streamOf: (stream) => stream,
  decider: invocationDecider,
  codec: invocationEventCodec,
};

const interruptedInvocationKind: AggregateKind<InterruptedInvocation, RecoverInvocation, InvocationEvent, InvocationAnswer> = {
  streamOf: (stream) => stream,
  decider: interruptedInvocationDecider,
  codec: invocationEventCodec,
};

/** A scheduler's key is its stream name: an episode and two addresses, so there is no single string to derive it from. */
const schedulerKind: AggregateKind<SchedulerState, SchedulerCommand, SchedulerEvent, SchedulerAnswer> = {
  streamOf: (stream) => stream,
  decider: answeringScheduler,
  codec: schedulerEventCodec,
  checkpointType: SCHEDULER_CHECKPOINTED,
};

/** The invocation's aggregate, in its episode. */
export const invocationAggregate = (store: EventStore, episodeId: string, invocationActionInstanceId: string): InvocationAggregate =>
  new StreamAggregate(invocationStream(episodeId, invocationActionInstanceId), store, invocationKind);

/** Recovery's view of an invocation: restored from the open-invocations view's snapshot, or folded from its stream. */
export const interruptedInvocationAggregate = (store: EventStore, episodeId: string, invocationActionInstanceId: string): InterruptedInvocationAggregate =>
  new StreamAggregate(invocationStream(episodeId, invocationActionInstanceId), store, interruptedInvocationKind);

export const schedulerAggregate = (store: EventStore, episodeId: string, policyAddress: string, participantAddress: string): SchedulerAggregate =>
  new StreamAggregate(schedulerStream(episodeId, policyAddress, participantAddress), store, schedulerKind);
