import type { AppendResult, EventStore, EventToAppend, ExpectedRevision } from '../../domain/ports/event-store';

/** One append as the engine asked the store for it. */
export interface RecordedAppend {
  readonly stream: string;
  readonly events: readonly EventToAppend[];
}

/**
 * Wraps a store so that every append through it is also written down: the throughput figure records
 * what one invocation of the engine appends, to replay the same appends on the store alone.
 */
export const recordingAppends = <S extends EventStore>(store: S, into: RecordedAppend[]): S =>
  new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'append') {
        return (stream: string, events: readonly EventToAppend[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> => {
          into.push({ stream, events });
          return target.append(stream, events, options);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });

const opensToolCall = (append: RecordedAppend): boolean => append.events[0]?.type === 'ToolActionAdmitted';
const endsToolCall = (append: RecordedAppend): boolean => append.events.some((event) => event.type === 'ToolActionSettled');

/**
 * The store alone under the engine's load shape: `writers` concurrent writers, each making one
 * invocation's appends one after another (as recorded), again and again, until `keepGoing` says stop.
 * Each replay writes to streams of its own (a writer's scheduler stream is kept across its replays,
 * as a participant's is), with the exact expected revision, and fresh event ids. `onToolCall` gets the
 * time of each tool call's appends, from the one that admits it to the one that settles it, as the
 * engine's harness times a call.
 */
export const replayAppendShape = async (
  store: EventStore,
  shape: readonly RecordedAppend[],
  writers: number,
  keepGoing: () => boolean,
  onInvocation: (appends: number) => void,
  prefix: string,
  onToolCall: (ms: number) => void = () => undefined,
): Promise<void> => {
  const revisions = new Map<string, bigint>();
  const writer = async (index: number): Promise<void> => {
    for (let replay = 0; keepGoing(); replay++) {
      let callStart: bigint | undefined;
      for (const [step, append] of shape.entries()) {
        if (opensToolCall(append)) callStart = process.hrtime.bigint();
        const stream = append.stream.startsWith('scheduler-')
          ? `${prefix}-w${index}-${append.stream}`
          : `${prefix}-w${index}-r${replay}-${append.stream}`;
        const last = revisions.get(stream);
        const events = append.events.map((event, n) => ({ ...event, id: `${prefix}-${index}-${replay}-${step}-${n}` }));
        const result = await store.append(stream, events, { expectedRevision: last ?? 'no_stream' });
        if (result.kind !== 'appended') throw new Error(`the store alone failed an append: ${JSON.stringify(result)}`);
        revisions.set(stream, result.nextExpectedRevision);
        if (callStart !== undefined && endsToolCall(append)) {
          onToolCall(Number(process.hrtime.bigint() - callStart) / 1e6);
          callStart = undefined;
        }
      }
      onInvocation(shape.length);
    }
  };
  await Promise.all(Array.from({ length: writers }, (_, index) => writer(index)));
};
