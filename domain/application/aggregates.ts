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
  SchedulerStateDataCodec,
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

/** Every scheduler event type, checked complete by the compiler. */
const SCHEDULER_EVENT_TYPES: Record<SchedulerEvent['type'], true> = {
  AttemptStarted: true,
  AttemptFinished: true,
  SchedulerStopped: true,
  IndeterminateActionResolved: true,
  SchedulerRestarted: true,
  ExecutionGenerationAdvanced: true,
  SchedulerCheckpointed: true,
};

export const invocationEventCodec: EventCodec<InvocationEvent> = trustedCodec('an invocation', new Set(INVOCATION_EVENT_TYPES));
const trustedSchedulerCodec: EventCodec<SchedulerEvent> = trustedCodec('a scheduler', new Set(Object.keys(SCHEDULER_EVENT_TYPES)));

type Members = { readonly [member: string]: unknown };
const isNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const isText = (value: unknown): boolean => typeof value === 'string';
const isTexts = (value: unknown): boolean => Array.isArray(value) && value.every(isText);

/**
 * What the scheduler's fold reads of each event, checked (and nothing else, so that older stores whose
 * events lack a member the fold does not read still load). A checkpoint's state is read whole.
 */
const FOLDED_MEMBERS: Record<SchedulerEvent['type'], { readonly what: string; readonly holds: (event: Members) => boolean }> = {
  AttemptStarted: { what: 'attempt, action_instance_id and tick', holds: (event) => isNumber(event.attempt) && isText(event.action_instance_id) && isNumber(event.tick) },
  AttemptFinished: { what: 'attempt and indeterminate_action_ids', holds: (event) => isNumber(event.attempt) && isTexts(event.indeterminate_action_ids) },
  SchedulerStopped: { what: 'reason and action_instance_id', holds: (event) => isText(event.reason) && isText(event.action_instance_id) },
  IndeterminateActionResolved: { what: 'action_instance_id', holds: (event) => isText(event.action_instance_id) },
  SchedulerRestarted: { what: 'nothing', holds: () => true },
  ExecutionGenerationAdvanced: { what: 'execution_generation', holds: (event) => isNumber(event.execution_generation) },
  SchedulerCheckpointed: {
    what: "a state that is a scheduler's state (attempts_started, execution_generation, in_flight, last_tick, status, stopped_by, unresolved)",
    holds: (event) => SchedulerStateDataCodec.is(event.state),
  },
};

/**
 * The scheduler's codec: trusted as every stored event is, but the members its fold reads are checked,
 * since a fold of members of other kinds would not fail but leave a state no history gives (a
 * scheduler loaded from its latest checkpoint takes that state whole). Two events an attempt, one
 * check each.
 */
export const schedulerEventCodec: EventCodec<SchedulerEvent> = {
  ...trustedSchedulerCodec,
  fromRecorded: (recorded) => {
    const event = trustedSchedulerCodec.fromRecorded(recorded);
    if (typeof event === 'string') return event;
    const folded = FOLDED_MEMBERS[event.type];
    return folded.holds(event as unknown as Members) ? event : `expected a ${event.type} event to hold ${folded.what} as the scheduler writes them`;
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
