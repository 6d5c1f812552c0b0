import type * as t from 'io-ts';
import {
  describeValidationErrors,
  InvocationEventCodec,
  invocationDecider,
  type InvocationCommand,
  type InvocationEvent,
  type InvocationState,
  type Refusal,
} from '../../domain/invocation';
import {
  SchedulerEventCodec,
  schedulerDecider,
  type SchedulerCommand,
  type SchedulerEvent,
  type SchedulerRefusal,
  type SchedulerState,
} from '../../domain/scheduler';
import { invocationStream, schedulerStream } from '../../domain/streams';
import type { EventStore, JsonValue, RecordedEvent } from '../event-store';
import { StreamAggregate, type EventCodec } from './stream-aggregate';

/** The two aggregates the runtime drives, bound to their streams and wire codecs. */

const codecOf = <V extends { readonly type: string }>(codec: t.Type<V, unknown, unknown>): EventCodec<V> => ({
  typeOf: (event) => event.type,
  toData: (event) => event as unknown as JsonValue,
  fromRecorded: (recorded: RecordedEvent) => {
    const decoded = codec.decode(recorded.data);
    return decoded._tag === 'Right' ? decoded.right : describeValidationErrors(decoded.left);
  },
});

export const invocationEventCodec: EventCodec<InvocationEvent> = codecOf(
  InvocationEventCodec as unknown as t.Type<InvocationEvent, unknown, unknown>,
);
export const schedulerEventCodec: EventCodec<SchedulerEvent> = codecOf(
  SchedulerEventCodec as unknown as t.Type<SchedulerEvent, unknown, unknown>,
);

export type InvocationAggregate = StreamAggregate<InvocationState, InvocationCommand, InvocationEvent, Refusal>;
export type SchedulerAggregate = StreamAggregate<SchedulerState, SchedulerCommand, SchedulerEvent, SchedulerRefusal>;

export const invocationAggregate = (store: EventStore, invocationActionInstanceId: string): InvocationAggregate =>
  new StreamAggregate(invocationStream(invocationActionInstanceId), store, invocationDecider, invocationEventCodec);

export const schedulerAggregate = (store: EventStore, policyAddress: string, participantAddress: string): SchedulerAggregate =>
  new StreamAggregate(schedulerStream(policyAddress, participantAddress), store, schedulerDecider, schedulerEventCodec);
