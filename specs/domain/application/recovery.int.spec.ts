import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import type { SqliteEventStore } from '../../../adapters/event-store';
import { ChainedEventStore, SEAL_EVERY } from '../../../adapters/event-store/chained-event-store';
import type { OpenedEventStore } from '../../../adapters/event-store/store-tail';
import { countingReads } from '../../adapters/event-store/support/counting-reads';
import { verifyIntegrity } from '../../../domain/integrity/verify';
import type { EventStore } from '../../../domain/ports/event-store';
import { HarnessRuntime, RuntimeManager, schedulerAggregate, toolActionRequestFor, type InvocationToolActionPort } from '../../../domain/application';
import { openInvocationsIndex } from '../../../adapters/views/open-invocations-index';
import { sqliteViews } from '../../../adapters/views/sqlite';
import type { OpenInvocationsIndex } from '../../../domain/ports/open-invocations';
import { listOpenInvocations } from '../../../projections/open-invocations';
import { invocationStream, schedulerStream } from '../../../domain/streams';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { callTool } from '../../../examples/harness/call-tool';
import { makeTempDir, type TempDir } from '../../adapters/event-store/support/temp-dir';
import { compiledScenario, manifest, openSqlite, PARTICIPANT, POLICY, steppingClock } from './support/world';

/**
 * Recovery on start, as after a crash: the first manager's invocation never returns; a second manager
 * over the same files recovers it before running anything new.
 */
const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;
const tool = (n: number): string => `${INVOCATION}:tool=${n}`;

const typesOf = async (store: SqliteEventStore, stream: string): Promise<string[]> => {
  const read = await store.readStream(stream);
  if (read.kind !== 'read') throw new Error(read.reason);
  return read.events.map((e) => e.type);
};

describe('recovery after a restart', () => {
  let dir: TempDir;
  const opened: { close(): unknown }[] = [];
  const open = <T extends { close(): unknown }>(thing: T): T => {
    opened.push(thing);
    return thing;
  };

  beforeEach(() => {
    dir = makeTempDir('runtime-recovery');
  });

  afterEach(async () => {
    for (const thing of opened.splice(0).reverse()) await thing.close();
    dir.remove();
  });

  const managerOn = (
    harness: ConstructorParameters<typeof HarnessRuntime>[0],
    openInvocations?: (views: BetterSqlite3.Database, store: SqliteEventStore) => OpenInvocationsIndex,
    viewsFile = 'views.sqlite',
    manifestDocument = manifest(),
    appendThrough?: (store: SqliteEventStore) => EventStore,
  ) => {
    const store = open(openSqlite(join(dir.path, 'events.sqlite')));
    const views = open(new BetterSqlite3(join(dir.path, viewsFile)));
    const writer = appendThrough === undefined ? store : appendThrough(store);
    const manager = new RuntimeManager({
      openInvocations: openInvocations === undefined ? openInvocationsIndex(writer, views) : openInvocations(views, store),
      compiled: compiledScenario(),
      manifest: manifestDocument,
      runtime: new HarnessRuntime(harness),
      store: writer,
      episodeId: 'episode-1',
      clock: steppingClock(),
    });
    return { manager, store, views };
  };

  /** An engine whose invocation makes `calls` through its port and dies there, in the middle of its tick. */
  const engineDiesAfter = async (calls: (port: InvocationToolActionPort) => Promise<void>, manifestDocument = manifest()) => {
    let interrupted: () => void = () => undefined;
    const reachedCrash = new Promise<void>((resolve) => (interrupted = resolve));
    const first = managerOn(async (request, _snapshot, port) => {
      await calls(port!);
      interrupted();
      await new Promise<never>(() => undefined); // the engine dies here
      return probeResult(request, []);
    }, undefined, 'views.sqlite', manifestDocument);
    await first.manager.start();
    void first.manager.advance(1);
    await reachedCrash;
    return first;
  };

  it('withholds undispatched actions, makes dispatched ones indeterminate, keeps completed ones, and stops the scheduler', async () => {
    let release: () => void = () => undefined;
    let interrupted: () => void = () => undefined;
    const reachedCrash = new Promise<void>((resolve) => (interrupted = resolve));
    const first = managerOn(async (request, _snapshot, port) => {
      await callTool(port!, 'call-1', PORTAL_CLIENT, async () => true);
      const admitted = await port!.admit({ ...requestOf(port!), tool_call_id: 'call-2' });
      const dispatchedOne = await port!.admit({ ...requestOf(port!), tool_call_id: 'call-3' });
      if (admitted.admitted && dispatchedOne.admitted) await port!.dispatch(dispatchedOne.action_instance_id);
      interrupted();
      await new Promise<void>((resolve) => (release = resolve)); // the engine dies here
      return probeResult(request, []);
    });
    await first.manager.start();
    const stuck = first.manager.advance(1);
    await reachedCrash;

    const second = managerOn(async (request) => probeResult(request, []));
    await expect(second.manager.advance(1)).rejects.toThrow(/start\(\)/);
    await second.manager.start();

    expect(await second.manager.getOperation(tool(1))).toMatchObject({ settlement: 'completed' });
    expect(await second.manager.getOperation(tool(2))).toMatchObject({ settlement: 'withheld' });
    expect(await second.manager.getOperation(tool(3))).toMatchObject({ settlement: 'indeterminate' });
    expect(await second.manager.getOperation(INVOCATION)).toMatchObject({
      state: 'settled',
      settlement: 'threw',
      attempt_outcome: 'consumed',
      diagnostics: [{ reason: 'recovered after a restart' }],
    });
    expect(second.manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({
      status: 'stopped',
      stoppedBy: { reason: 'indeterminate_tool_action' },
      inFlight: new Map(),
      unresolved: new Set([tool(3)]),
    });
    expect(listOpenInvocations(sqliteViews(second.views))).toEqual([]);

    await second.manager.advance(4);
    expect(await typesOf(second.store, invocationStream('episode-1', `${POLICY}:${PARTICIPANT}:2`))).toEqual([]);
    expect(await second.manager.resolve(tool(3), 'happened', 'content.participant-observation')).toEqual({ ok: true });
    expect(await second.manager.restartScheduler(PARTICIPANT)).toEqual({ ok: true });
    await second.manager.advance(2);
    expect(await typesOf(second.store, invocationStream('episode-1', `${POLICY}:${PARTICIPANT}:2`))).toContain('InvocationClosed');

    // The interrupted engine wakes up late: it cannot close or count the recovered invocation again.
    release();
    await stuck;
    const closes = (await typesOf(second.store, invocationStream('episode-1', INVOCATION))).filter((t) => t === 'InvocationClosed');
    expect(closes).toHaveLength(1);
    const finished = (await typesOf(second.store, schedulerStream('episode-1', POLICY, PARTICIPANT))).filter((t) => t === 'AttemptFinished');
    expect(finished).toHaveLength(2);
  });

  it('through the chain, settles an invocation the views list after the link they kept, reading none of its stream nor its scheduler', async () => {
    const chained = (store: OpenedEventStore) => new ChainedEventStore(store, SEAL_EVERY, true);
    let interrupted: () => void = () => undefined;
    const reachedCrash = new Promise<void>((resolve) => (interrupted = resolve));
    const first = managerOn(
      async (request, _snapshot, port) => {
        await callTool(port!, 'call-1', PORTAL_CLIENT, async () => true);
        const dispatchedOne = await port!.admit({ ...requestOf(port!), tool_call_id: 'call-2' });
        if (dispatchedOne.admitted) await port!.dispatch(dispatchedOne.action_instance_id);
        interrupted();
        await new Promise<never>(() => undefined); // the engine dies here
        return probeResult(request, []);
      },
      undefined,
      'views.sqlite',
      manifest(),
      chained,
    );
    await first.manager.start();
    void first.manager.advance(1);
    await reachedCrash;
    await openInvocationsIndex(first.store, first.views).catchUp(); // the views as a live follower left them

    const stream = invocationStream('episode-1', INVOCATION);
    const scheduler = schedulerStream('episode-1', POLICY, PARTICIPANT);
    let streamReads = (): number => Number.NaN;
    const second = managerOn(async (request) => probeResult(request, []), undefined, 'views.sqlite', manifest(), (store) => {
      const counted = countingReads(store, (streams) => streams.includes(stream) || streams.includes(scheduler));
      streamReads = counted.reads;
      return chained(counted.store);
    });
    await second.manager.start();
    expect(streamReads()).toBe(0);
    expect(await second.manager.getOperation(tool(2))).toMatchObject({ settlement: 'indeterminate' });
    expect(await second.manager.getOperation(INVOCATION)).toMatchObject({ state: 'settled', attempt_outcome: 'consumed' });
    const all = await second.store.readAll();
    if (all.kind !== 'read') throw new Error(all.reason);
    expect(all.events.filter((event) => event.stream === stream).map((event) => event.type)).toContain('InvocationClosed');
    expect(all.events.filter((event) => event.stream === scheduler).map((event) => event.type)).toContain('AttemptFinished');
    expect(verifyIntegrity(all.events).findings).toEqual([]);
  });

  it('recovers from a view that fell behind the stream: a dispatch the view did not see still ends indeterminate', async () => {
    let dispatchNow: () => void = () => undefined;
    let admittedBoth: () => void = () => undefined;
    let interrupted: () => void = () => undefined;
    const reachedAdmissions = new Promise<void>((resolve) => (admittedBoth = resolve));
    const reachedCrash = new Promise<void>((resolve) => (interrupted = resolve));
    const first = managerOn(async (request, _snapshot, port) => {
      const withheld = await port!.admit({ ...requestOf(port!), tool_call_id: 'call-1' });
      const dispatched = await port!.admit({ ...requestOf(port!), tool_call_id: 'call-2' });
      admittedBoth();
      await new Promise<void>((resolve) => (dispatchNow = resolve));
      if (withheld.admitted && dispatched.admitted) await port!.dispatch(dispatched.action_instance_id);
      interrupted();
      await new Promise<never>(() => undefined); // the engine dies here
      return probeResult(request, []);
    });
    await first.manager.start();
    void first.manager.advance(1);
    await reachedAdmissions;
    await openInvocationsIndex(first.store, first.views).catchUp();
    const stale = listOpenInvocations(sqliteViews(first.views));
    expect(stale).toEqual([expect.objectContaining({ recovery: expect.objectContaining({ unsettled: [
      { actionInstanceId: tool(1), phase: 'admitted' },
      { actionInstanceId: tool(2), phase: 'admitted' },
    ] }) })]);
    dispatchNow();
    await reachedCrash;

    // The restart's view never catches up: it lists the invocation as the view saw it before the dispatch.
    const second = managerOn(async (request) => probeResult(request, []), () => ({ catchUp: async () => undefined, listOpen: () => stale }));
    await second.manager.start();
    expect(await second.manager.getOperation(tool(1))).toMatchObject({ settlement: 'withheld' });
    expect(await second.manager.getOperation(tool(2))).toMatchObject({ settlement: 'indeterminate' });
    expect(second.manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({ status: 'stopped', unresolved: new Set([tool(2)]) });
  });

  /** Attempt 1 succeeds, the views caught up after its tick; attempt 2 completes call-1, dispatches call-2, admits call-3 and dies. */
  const engineDiesAfterViewsApplied = async () => {
    let interrupted: () => void = () => undefined;
    const reachedCrash = new Promise<void>((resolve) => (interrupted = resolve));
    let attempts = 0;
    const first = managerOn(async (request, _snapshot, port) => {
      if (++attempts === 1) return probeResult(request, [await callTool(port!, 'call-1', PORTAL_CLIENT, async () => true)]);
      await callTool(port!, 'call-1', PORTAL_CLIENT, async () => true);
      const dispatched = await port!.admit({ ...requestOf(port!), tool_call_id: 'call-2' });
      if (dispatched.admitted) await port!.dispatch(dispatched.action_instance_id);
      await port!.admit({ ...requestOf(port!), tool_call_id: 'call-3' });
      interrupted();
      await new Promise<never>(() => undefined); // the engine dies here
      return probeResult(request, []);
    });
    await first.manager.start();
    await first.manager.advance(1);
    void first.manager.advance(2);
    await reachedCrash;
    return first;
  };

  it('folds what the views had not applied in memory, and catches the views up only after recovery', async () => {
    const first = await engineDiesAfterViewsApplied();
    expect(listOpenInvocations(sqliteViews(first.views))).toEqual([]); // the views never saw attempt 2 open
    const interrupted = `${POLICY}:${PARTICIPANT}:2`;

    // What the invocation's stream held each time the views were caught up, read as the catch-up starts.
    const atCatchUps: Promise<string[]>[] = [];
    const second = managerOn(
      async (request) => probeResult(request, []),
      (views, store) => {
        const index = openInvocationsIndex(store, views);
        return { ...index, catchUp: () => (atCatchUps.push(typesOf(store, invocationStream('episode-1', interrupted))), index.catchUp()) };
      },
    );
    await second.manager.start();
    expect(await second.manager.getOperation(`${interrupted}:tool=1`)).toMatchObject({ settlement: 'completed' });
    expect(await second.manager.getOperation(`${interrupted}:tool=2`)).toMatchObject({ settlement: 'indeterminate' });
    expect(await second.manager.getOperation(`${interrupted}:tool=3`)).toMatchObject({ settlement: 'withheld' });
    expect(await second.manager.getOperation(interrupted)).toMatchObject({ state: 'settled', attempt_outcome: 'consumed' });
    expect(second.manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({
      status: 'stopped',
      attemptsStarted: 2,
      inFlight: new Map(),
      unresolved: new Set([`${interrupted}:tool=2`]),
    });
    await second.manager.viewsCurrent();
    expect(atCatchUps).toHaveLength(1);
    expect(await atCatchUps[0]).toContain('InvocationClosed');
    expect(listOpenInvocations(sqliteViews(second.views))).toEqual([]);
    const closes = (await typesOf(second.store, invocationStream('episode-1', interrupted))).filter((type) => type === 'InvocationClosed');
    expect(closes).toHaveLength(1);
  });

  it('lists from the views and the log in memory exactly what a catch-up of the views lists', async () => {
    const first = await engineDiesAfterViewsApplied();
    const index = openInvocationsIndex(first.store, first.views);
    const current = await index.current!();
    expect(current?.open).toEqual([expect.objectContaining({ invocation_action_instance_id: `${POLICY}:${PARTICIPANT}:2` })]);
    await index.catchUp();
    expect(current).toEqual({ open: index.listOpen(), schedulerSnapshots: index.schedulerSnapshots!() });
  });

  it('with the views file lost, is ready from the streams without first replaying the history into the view', async () => {
    const first = await engineDiesAfter(async (port) => {
      await callTool(port, 'call-1', PORTAL_CLIENT, async () => true);
      const dispatched = await port.admit({ ...requestOf(port), tool_call_id: 'call-2' });
      if (dispatched.admitted) await port.dispatch(dispatched.action_instance_id);
      await port.admit({ ...requestOf(port), tool_call_id: 'call-3' });
    });

    // The restart's views are a new file, and its store holds back every read of the whole log.
    let releaseLog: () => void = () => undefined;
    const logReleased = new Promise<void>((resolve) => (releaseLog = resolve));
    const heldLogReads = (views: BetterSqlite3.Database, store: SqliteEventStore): OpenInvocationsIndex => {
      const held = Object.create(store) as SqliteEventStore;
      held.readAll = async (options) => {
        await logReleased;
        return store.readAll(options);
      };
      return openInvocationsIndex(held, views);
    };
    const second = managerOn(async (request) => probeResult(request, []), heldLogReads, 'views-after-loss.sqlite');
    const ready = await Promise.race([second.manager.start().then(() => 'ready'), new Promise((resolve) => setTimeout(() => resolve('waiting on the log'), 5000))]);
    expect(ready).toBe('ready');
    expect(await second.manager.getOperation(tool(1))).toMatchObject({ settlement: 'completed' });
    expect(await second.manager.getOperation(tool(2))).toMatchObject({ settlement: 'indeterminate' });
    expect(await second.manager.getOperation(tool(3))).toMatchObject({ settlement: 'withheld' });
    expect(await second.manager.getOperation(INVOCATION)).toMatchObject({ state: 'settled', attempt_outcome: 'consumed' });
    expect(second.manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({ status: 'stopped', inFlight: new Map(), unresolved: new Set([tool(2)]) });

    // The new view then catches up in the background, the recovered invocation closed in it.
    releaseLog();
    await second.manager.viewsCurrent();
    expect(listOpenInvocations(sqliteViews(second.views))).toEqual([]);
    expect(await typesOf(second.store, invocationStream('episode-1', INVOCATION))).toContain('InvocationClosed');
  });

  it('with the views file lost, recovers an invocation whose stream is longer than one batched read', async () => {
    const longInvocations = manifest({ maxToolActionsPerInvocation: 64 });
    const notCompleted: string[] = [];
    const COMPLETED = 40; // two events each (admitted and dispatched, settled): the stream outgrows the 64 events read of each stream in a batch
    const first = await engineDiesAfter(async (port) => {
      for (let call = 1; call <= COMPLETED; call++) {
        const outcome = await callTool(port, `call-${call}`, PORTAL_CLIENT, async () => true);
        if (outcome.kind !== 'completed') notCompleted.push(`call ${call}: ${JSON.stringify(outcome)}`);
      }
      const dispatched = await port.admit({ ...requestOf(port), tool_call_id: 'call-dispatched' });
      if (dispatched.admitted) await port.dispatch(dispatched.action_instance_id);
      await port.admit({ ...requestOf(port), tool_call_id: 'call-admitted' });
    }, longInvocations);
    expect(notCompleted).toEqual([]);
    expect((await typesOf(first.store, invocationStream('episode-1', INVOCATION))).length).toBeGreaterThan(64);

    const second = managerOn(async (request) => probeResult(request, []), undefined, 'views-after-loss.sqlite', longInvocations);
    await second.manager.start();
    for (let ordinal = 1; ordinal <= COMPLETED; ordinal++) expect(await second.manager.getOperation(tool(ordinal))).toMatchObject({ settlement: 'completed' });
    expect(await second.manager.getOperation(tool(COMPLETED + 1))).toMatchObject({ settlement: 'indeterminate' });
    expect(await second.manager.getOperation(tool(COMPLETED + 2))).toMatchObject({ settlement: 'withheld' });
    expect(await second.manager.getOperation(INVOCATION)).toMatchObject({ state: 'settled', attempt_outcome: 'consumed' });
    expect(second.manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({ status: 'stopped', inFlight: new Map(), unresolved: new Set([tool(COMPLETED + 1)]) });
    const closedTypes = await typesOf(second.store, invocationStream('episode-1', INVOCATION));
    expect(closedTypes.filter((type) => type === 'InvocationClosed')).toHaveLength(1);
  });

  it('counts an attempt interrupted before its invocation opened as consumed', async () => {
    const { manager, store } = managerOn(async (request) => probeResult(request, []));
    const scheduler = schedulerAggregate(store, 'episode-1', POLICY, PARTICIPANT);
    const policy = {
      policy_address: POLICY,
      participant_address: PARTICIPANT,
      clock_address: 'time.clock.exercise-clock',
      action_order: ['participant.action-contract.probe-customer-portal-login'],
      start_tick: 0,
      cadence_ticks: 2,
      max_action_attempts: 3,
      max_in_flight: 1,
      failure_policy: 'stop' as const,
    };
    expect(await scheduler.handle({ type: 'StartAttempt', policy, tick: 0, at: '2026-04-11T10:00:00Z' })).toMatchObject({
      kind: 'decided',
      answer: { kind: 'accepted' },
    });

    await manager.start();
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({ status: 'stopped', inFlight: new Map() });
    expect(await manager.getOperation(INVOCATION)).toMatchObject({ state: 'settled', attempt_outcome: 'consumed' });
    expect(manager.tick).toBe(0);
  });
});

const requestOf = (port: InvocationToolActionPort) => toolActionRequestFor(port, '', PORTAL_CLIENT);
