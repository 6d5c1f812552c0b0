import { evolveInterrupted, initialInterruptedInvocation, interruptedEventOf, type InterruptedInvocation } from '../invocation';
import type { RecordedEvent, ReadStreamsResult } from '../ports/event-store';
import type { AttemptOutcome } from '../scheduler';
import { invocationStream } from '../streams';
import { invocationAggregate, interruptedInvocationAggregate } from './aggregates';
import { attemptOutcomeOf, finishAttempt, indeterminateIdsOf } from './attempts';
import type { OpenInvocationEntry, SchedulerSnapshot } from '../ports/open-invocations';
import type { PolicyParticipant } from './policy-participants';
import { reportToolProgress } from './progress';
import { must, type RuntimeContext } from './runtime-context';

/**
 * Recovers up to this many invocations at a time: their appends share group commits (one fsync for
 * many instead of one each), and while the writer commits some the next ones are decided. Commands on
 * one scheduler still run one after another.
 */
const RECOVERY_WINDOW = 512;

/**
 * Streams read in one store call: with the views lost recovery reads every scheduler's stream and every
 * interrupted invocation's, and a read each (about 100 us on SQLite) was most of its time. Larger
 * batches read no faster and keep more events alive at once: with 1,024, garbage collection took twice
 * as long.
 */
const READ_BATCH = 256;
/**
 * Events of each stream read in a batch: a longer stream (a scheduler with a long history, thousands of
 * attempts) is read on by itself. Without the bound, a batch holding the history's long scheduler
 * streams kept over 100,000 events alive at once, and garbage collection tripled the time to load them.
 */
const BATCH_EVENTS_PER_STREAM = 64;

/**
 * Runs `recover` over `items` in order, at most RECOVERY_WINDOW at once, starting the next as each ends;
 * `recover` is called for an item only once it has been for every item before it.
 */
const recoverConcurrently = async <T>(items: readonly T[], recover: (item: T, index: number) => Promise<void>): Promise<void> => {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await recover(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECOVERY_WINDOW, items.length) }, lane));
};

/**
 * Start-time recovery, first step: restores every scheduler from its snapshot (or folds its stream).
 * Returns the last tick that ran (at least `lastTick`).
 */
export const restoreSchedulers = async (
  context: RuntimeContext,
  snapshots: ReadonlyMap<string, SchedulerSnapshot> | undefined,
  lastTick: number,
): Promise<number> => {
  let currentTick = lastTick;
  const unrestored: PolicyParticipant[] = [];
  for (const entry of context.schedulers.byKey.values()) {
    const snapshot = snapshots?.get(entry.scheduler.stream);
    if (snapshot === undefined || !entry.scheduler.restore(snapshot.state, snapshot.revision, snapshot.link)) unrestored.push(entry);
  }
  await loadSchedulers(context, unrestored);
  for (const entry of context.schedulers.byKey.values()) {
    const schedulerTick = entry.scheduler.state.lastTick;
    if (schedulerTick !== null && schedulerTick > currentTick) currentTick = schedulerTick;
  }
  return currentTick;
};

/** Folds the schedulers' streams, READ_BATCH streams per store call. */
const loadSchedulers = async (context: RuntimeContext, entries: readonly PolicyParticipant[]): Promise<void> => {
  for (let start = 0; start < entries.length; start += READ_BATCH) {
    const batch = entries.slice(start, start + READ_BATCH);
    const read = await context.options.store.readStreams(
      batch.map((entry) => entry.scheduler.stream),
      { maxCount: BATCH_EVENTS_PER_STREAM },
    );
    if (read.kind === 'storage_failure') throw new Error(`loading ${batch.length} scheduler streams: ${read.reason}`);
    for (const entry of batch) {
      const events = read.streams.get(entry.scheduler.stream) ?? [];
      const loaded = entry.scheduler.fold(events);
      if (loaded.kind === 'unavailable') throw loaded.foreign ?? new Error(`loading ${entry.scheduler.stream}: ${loaded.reason}`);
      if (events.length === BATCH_EVENTS_PER_STREAM) await must(entry.scheduler.loadFromCheckpoint(), `loading ${entry.scheduler.stream}`);
    }
  }
};

/**
 * Start-time recovery, second step: every interrupted invocation is settled and closed, and its attempt
 * counted, before any new one; then the sweep of attempts the open-invocations view did not list.
 */
export const recoverInterrupted = async (context: RuntimeContext, open: readonly OpenInvocationEntry[] | undefined): Promise<void> => {
  const schedulers = context.schedulers.byKey;
  const owners = new Map<string, PolicyParticipant>();
  for (const entry of schedulers.values()) {
    for (const actionInstanceId of entry.scheduler.state.inFlight.values()) owners.set(actionInstanceId, entry);
  }
  if (open !== undefined) {
    const seen = new Set<string>();
    // The view lists every episode's open invocations: another episode's are never touched here.
    const episodeId = context.options.episodeId;
    const listed = open.filter((row) => row.episode_id === episodeId && !seen.has(row.invocation_action_instance_id) && (seen.add(row.invocation_action_instance_id), true));
    await recoverConcurrently(listed, (row) => {
      const invocationId = row.invocation_action_instance_id;
      const fold = row.recovery !== undefined && row.revision !== undefined ? { recovery: row.recovery, revision: row.revision, link: row.link } : undefined;
      return recoverOpen(context, invocationId, fold, owners.get(invocationId));
    });
  }
  // Attempts still in flight: interrupted before their invocation opened, after it closed, or not yet
  // in the open-invocations view (all of them when the view is blank).
  await recoverFromStreams(context, inFlightOf([...schedulers.values()]));
};

/** Every attempt the schedulers have in flight, once per invocation, with the scheduler it is in flight under. */
const inFlightOf = (entries: readonly PolicyParticipant[]): Array<readonly [string, PolicyParticipant]> => {
  const inFlight = new Map<string, PolicyParticipant>();
  for (const entry of entries) for (const actionInstanceId of entry.scheduler.state.inFlight.values()) inFlight.set(actionInstanceId, entry);
  return [...inFlight];
};

/**
 * Recovers the invocations of attempts in flight from their streams, read READ_BATCH at a time as
 * recovery reaches them, each batch in one store call.
 */
const recoverFromStreams = async (context: RuntimeContext, inFlight: ReadonlyArray<readonly [string, PolicyParticipant]>): Promise<void> => {
  const eventsOf = batchedStreams(context, inFlight.map(([invocationId]) => invocationStream(context.options.episodeId, invocationId)));
  await recoverConcurrently(inFlight, async ([invocationId, owner], index) => recoverFromStream(context, invocationId, await eventsOf(index), owner));
};

/**
 * The events of `streams[index]`, asked for once each: the first call for an index reads its whole
 * batch of READ_BATCH streams in one store call. A stream's events are let go once handed out, and a
 * batch once the next is read (recoverConcurrently has then asked for every stream of the earlier
 * ones), so they die young; asked for again, a batch is read again.
 */
const batchedStreams = (context: RuntimeContext, streams: readonly string[]): ((index: number) => Promise<readonly RecordedEvent[]>) => {
  const batches = new Map<number, Promise<Map<string, readonly RecordedEvent[]>>>();
  const readBatch = async (number: number): Promise<Map<string, readonly RecordedEvent[]>> => {
    const read = await context.options.store.readStreams(streams.slice(number * READ_BATCH, (number + 1) * READ_BATCH), {
      maxCount: BATCH_EVENTS_PER_STREAM,
    });
    if (read.kind === 'storage_failure') throw new Error(`reading the streams of interrupted invocations: ${read.reason}`);
    return new Map(read.streams);
  };
  const readOn = async (stream: string, first: readonly RecordedEvent[]): Promise<readonly RecordedEvent[]> => {
    if (first.length < BATCH_EVENTS_PER_STREAM) return first;
    const rest = await context.options.store.readStream(stream, { fromRevision: BigInt(first.length) });
    if (rest.kind === 'storage_failure') throw new Error(`reading ${stream}: ${rest.reason}`);
    return first.concat(rest.events);
  };
  return async (index) => {
    const number = Math.floor(index / READ_BATCH);
    let batch = batches.get(number);
    if (batch === undefined) {
      batches.delete(number - 1);
      batch = readBatch(number);
      batches.set(number, batch);
    }
    const read = await batch;
    const stream = streams[index]!;
    const events = read.get(stream) ?? [];
    read.delete(stream);
    return readOn(stream, events);
  };
};

/**
 * Recovers an invocation from its stream as read: folded only as far as recovery reads it (parsing no
 * opening or admission), then decided as from the open-invocations view's fold. One that never opened
 * or already closed takes the general path.
 */
const recoverFromStream = async (context: RuntimeContext, invocationId: string, events: readonly RecordedEvent[], owner: PolicyParticipant | undefined): Promise<void> => {
  let recovery: InterruptedInvocation = initialInterruptedInvocation();
  let revision = -1;
  for (const recorded of events) {
    const event = interruptedEventOf(recorded, recovery, invocationId);
    if (event !== undefined) recovery = evolveInterrupted(recovery, event);
    revision = Number(recorded.revision);
  }
  if (recovery.status !== 'open') return recoverInvocation(context, invocationId, owner);
  return recoverOpen(context, invocationId, { recovery, revision }, owner);
};

/**
 * Settles and closes an open invocation, deciding from a fold of it as recovery reads it (the
 * open-invocations view's, or its stream's as read; without one, its stream folded so); counts its
 * attempt. A fold behind the stream is safe: the append expects the fold's revision, so it re-reads from
 * there and decides again. Anything else (the stream says it already closed) takes the general path.
 */
const recoverOpen = async (
  context: RuntimeContext,
  invocationId: string,
  fold: { readonly recovery: InterruptedInvocation; readonly revision: number; readonly link?: string | null } | undefined,
  owner: PolicyParticipant | undefined,
): Promise<void> => {
  const aggregate = interruptedInvocationAggregate(context.options.store, context.options.episodeId, invocationId);
  const restored = fold !== undefined && aggregate.restore(fold.recovery, fold.revision, fold.link);
  if (!restored) await must(aggregate.load(), `reading ${aggregate.stream}`);
  if (aggregate.state.status !== 'open') return recoverInvocation(context, invocationId, owner);
  const recovered = await aggregate.handle({ type: 'RecoverInvocation', at: context.now() });
  if (recovered.kind === 'unavailable') throw new Error(`recovering ${invocationId}: ${recovered.reason}`);
  if (recovered.answer.kind === 'refused') return recoverInvocation(context, invocationId, owner);
  reportToolProgress(recovered.events, context.options.onProgress);
  const state = recovered.state;
  // A recovered invocation closed as if it threw: its attempt is consumed (attemptOutcomeOf).
  const indeterminate = state.status === 'unopened' ? [] : state.unresolvedIndeterminate;
  await finishAttempts(context, owner, invocationId, 'consumed', indeterminate);
};

/**
 * Recovery of exactly these schedulers (the participants an engine took over from one that died): every
 * attempt they have in flight has its invocation settled and closed, and is counted. Another engine's
 * invocations are never touched: only the in-flight attempts of the given schedulers are read.
 */
export const recoverSchedulers = async (context: RuntimeContext, entries: readonly PolicyParticipant[]): Promise<void> => {
  await recoverFromStreams(context, inFlightOf(entries));
};

/** Settles and closes an interrupted invocation (if open) and counts its attempt (if in flight under `owner`). */
const recoverInvocation = async (context: RuntimeContext, invocationId: string, owner: PolicyParticipant | undefined): Promise<void> => {
  const aggregate = invocationAggregate(context.options.store, context.options.episodeId, invocationId);
  await must(aggregate.load(), `reading ${aggregate.stream}`);
  if (aggregate.state.status === 'opened' && aggregate.state.lifecycle.status !== 'closed') {
    const recovered = await aggregate.handle({ type: 'RecoverInvocation', at: context.now() });
    if (recovered.kind === 'unavailable') throw new Error(`recovering ${invocationId}: ${recovered.reason}`);
    if (recovered.kind === 'decided') reportToolProgress(recovered.events, context.options.onProgress);
  }
  const state = aggregate.state;
  await finishAttempts(context, owner, invocationId, attemptOutcomeOf(state), indeterminateIdsOf(state));
};

/** Counts every attempt `owner` has in flight for the invocation. */
const finishAttempts = async (
  context: RuntimeContext,
  owner: PolicyParticipant | undefined,
  invocationId: string,
  outcome: AttemptOutcome,
  indeterminate: readonly string[],
): Promise<void> => {
  if (owner === undefined) return;
  for (const [attempt, actionInstanceId] of [...owner.scheduler.state.inFlight]) {
    if (actionInstanceId !== invocationId) continue;
    await finishAttempt(context, owner, attempt, invocationId, outcome, indeterminate, true);
  }
};
