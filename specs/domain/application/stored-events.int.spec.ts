import { MemoryEventStore } from '../../../adapters/event-store';
import { StreamAggregate, invocationAggregate, schedulerAggregate } from '../../../domain/application';
import { invocationStream, schedulerStream } from '../../../domain/streams';
import { ForeignEvent } from '../../../domain/ports/unreadable-event';
import { PARTICIPANT, POLICY } from './support/world';

/** Replay trusts the engine's own events: it checks their type tags and a checkpoint's state, and names an event it cannot fold. */

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;

describe('loading an aggregate from stored events', () => {
  it('folds an event as stored, without decoding it again', async () => {
    const store = new MemoryEventStore();
    const started = {
      type: 'AttemptStarted',
      policy_address: POLICY,
      participant_address: PARTICIPANT,
      attempt: 1,
      action_instance_id: INVOCATION,
      action_contract_address: 'participant.action-contract.run-harness',
      tick: 7,
      observation_point: 'time.clock.shared@segment=0,tick=7',
      execution_generation: 0,
      at: '2026-04-11T10:00:00.000Z',
    };
    await store.append(schedulerStream('episode-1', POLICY, PARTICIPANT), [{ id: 'a', type: 'AttemptStarted', data: started }], { expectedRevision: 'no_stream' });
    const scheduler = schedulerAggregate(store, 'episode-1', POLICY, PARTICIPANT);
    expect(await scheduler.load()).toEqual({ kind: 'loaded' });
    expect(scheduler.state.lastTick).toBe(7);
    expect([...scheduler.state.inFlight]).toEqual([[1, INVOCATION]]);
  });

  it('refuses a stream whose event type tag is not its recorded type, naming the revision and the stream', async () => {
    const store = new MemoryEventStore();
    await store.append(invocationStream('episode-1', INVOCATION), [{ id: 'a', type: 'InvocationOpened', data: { type: 'SomethingElse' } }], {
      expectedRevision: 'no_stream',
    });
    const aggregate = invocationAggregate(store, 'episode-1', INVOCATION);
    const loaded = await aggregate.load();
    expect(loaded.kind).toBe('unavailable');
    expect(loaded.kind === 'unavailable' && loaded.reason).toContain(`event 0 of stream '${invocationStream('episode-1', INVOCATION)}'`);
    expect(loaded.kind === 'unavailable' && loaded.reason).toContain("got type 'InvocationOpened'");
    expect(aggregate.state.status).toBe('unopened');
  });

  it.each([
    ['members its fold cannot read', { type: 'AttemptFinished', attempt: 1, indeterminate_action_ids: 5, at: '2026-04-11T10:00:00.000Z' }, 'expected a AttemptFinished event to hold attempt and indeterminate_action_ids'],
    ['members missing', { type: 'AttemptStarted', at: '2026-04-11T10:00:00.000Z' }, 'expected a AttemptStarted event to hold attempt, action_instance_id and tick'],
    ['a checkpoint that holds no scheduler state', { type: 'SchedulerCheckpointed', at: '2026-04-11T10:00:00.000Z', state: { attempts_started: 'many' } }, "event to hold a state that is a scheduler's state"],
  ])('refuses a scheduler event with %s, naming it as an event the engine did not write', async (_what, data, reason) => {
    const store = new MemoryEventStore();
    const stream = schedulerStream('episode-1', POLICY, PARTICIPANT);
    await store.append(stream, [{ id: 'a', type: data.type, data }], { expectedRevision: 'no_stream' });
    const loaded = await schedulerAggregate(store, 'episode-1', POLICY, PARTICIPANT).load();
    expect(loaded.kind).toBe('unavailable');
    const foreign = loaded.kind === 'unavailable' ? loaded.foreign : undefined;
    expect(foreign).toBeInstanceOf(ForeignEvent);
    expect(foreign?.message).toContain(`the event at position 1 (stream '${stream}', revision 0) is not an event the engine writes there`);
    expect(foreign?.message).toContain(reason);
  });

  it('names an event whose fold throws as one the engine did not write, keeping the state before it', async () => {
    const store = new MemoryEventStore();
    await store.append('counter-a', [{ id: 'a', type: 'Counted', data: { type: 'Counted', by: 1 } }, { id: 'b', type: 'Counted', data: { type: 'Counted', by: 'x' } }], { expectedRevision: 'no_stream' });
    type Counted = { readonly type: 'Counted'; readonly by: number };
    const counter = new StreamAggregate<number, never, Counted, never>('counter-a', store, {
      streamOf: (key) => key,
      decider: {
        initialState: () => 0,
        evolve: (state, event) => {
          if (typeof event.by !== 'number') throw new TypeError('by is not a number');
          return state + event.by;
        },
        decide: () => ({ events: [], answer: undefined as never }),
      },
      codec: { typeOf: (event) => event.type, toData: (event) => event, fromRecorded: (recorded) => recorded.data as unknown as Counted },
    });
    const loaded = await counter.load();
    expect(loaded.kind === 'unavailable' && loaded.foreign).toBeInstanceOf(ForeignEvent);
    expect(loaded.kind === 'unavailable' && loaded.foreign?.message).toContain("the event at position 2 (stream 'counter-a', revision 1) is not an event the engine writes there (it cannot be folded: by is not a number)");
    expect(counter.state).toBe(1);
  });

  it('refuses an event type the aggregate does not know', async () => {
    const store = new MemoryEventStore();
    await store.append(invocationStream('episode-1', INVOCATION), [{ id: 'a', type: 'AttemptStarted', data: { type: 'AttemptStarted' } }], {
      expectedRevision: 'no_stream',
    });
    expect((await invocationAggregate(store, 'episode-1', INVOCATION).load()).kind).toBe('unavailable');
  });

  it('derives its stream name from its key', () => {
    const store = new MemoryEventStore();
    expect(invocationAggregate(store, 'episode-1', INVOCATION).stream).toBe(invocationStream('episode-1', INVOCATION));
    expect(schedulerAggregate(store, 'episode-1', POLICY, PARTICIPANT).stream).toBe(schedulerStream('episode-1', POLICY, PARTICIPANT));
  });
});
