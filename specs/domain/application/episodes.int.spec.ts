import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { Client } from 'pg';
import { HarnessRuntime, RuntimeManager, toolActionRequestFor, type InvocationToolActionPort } from '../../../domain/application';
import type { EventStore } from '../../../domain/ports/event-store';
import { openInvocationsIndex } from '../../../adapters/views/open-invocations-index';
import { sqliteViews } from '../../../adapters/views/sqlite';
import { openPostgresEventStore } from '../../../adapters/event-store/postgres/postgres-event-store';
import { ALL_PROJECTIONS, childOperations, getOperation, listEpisodes, listOpenInvocations, listSchedulers, ProjectionRunner } from '../../../projections';
import { invocationStream, schedulerStream } from '../../../domain/streams';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { makeTempDir, type TempDir } from '../../adapters/event-store/support/temp-dir';
import { startPostgresServer, type PostgresServer } from '../../adapters/event-store/postgres/support/postgres-server';
import { compiledScenario, manifest, openSqlite, PARTICIPANT, POLICY, steppingClock } from './support/world';

/**
 * Two episodes of one scenario in one store: the same invocation and tool action ids, each in its
 * episode's own streams. An engine of episode A is interrupted with a dispatched tool action, then one
 * of episode B; recovery of A (and B's start beside A's open invocation) never touches B's invocation,
 * and every view keeps the two apart.
 */

jest.setTimeout(180_000);

const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;
const TOOL = `${INVOCATION}:tool=1`;
const A = 'episode-a';
const B = 'episode-b';

let server: PostgresServer | undefined;
let databases = 0;

type StoreKind = 'sqlite' | 'postgres';

/** Opens (again, after a "crash") the store of the test: a file in `dir`, or a database of the server. */
const storeOpener = async (kind: StoreKind, dir: string): Promise<() => EventStore> => {
  if (kind === 'sqlite') return () => openSqlite(join(dir, 'events.sqlite'));
  server ??= await startPostgresServer();
  const database = `episodes_${++databases}`;
  const admin = new Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = server.url.replace(/\/postgres$/, `/${database}`);
  return () => openPostgresEventStore({ connectionString: url });
};

const typesOf = async (store: EventStore, stream: string): Promise<string[]> => {
  const read = await store.readStream(stream);
  if (read.kind !== 'read') throw new Error(read.reason);
  return read.events.map((e) => e.type);
};

const requestOf = (port: InvocationToolActionPort) => toolActionRequestFor(port, 'call-1', PORTAL_CLIENT);

afterAll(async () => server?.stop(), 60_000);

describe.each<StoreKind>(['sqlite', 'postgres'])('two episodes in one %s store', (kind) => {
  let dir: TempDir;
  const opened: { close(): unknown }[] = [];
  const open = <T extends { close(): unknown }>(thing: T): T => {
    opened.push(thing);
    return thing;
  };

  beforeEach(() => {
    dir = makeTempDir(`episodes-${kind}`);
  });

  afterEach(async () => {
    for (const thing of opened.splice(0).reverse()) await thing.close();
    dir.remove();
  });

  it('recovers one episode without touching the other, and the views keep them apart', async () => {
    const openStore = await storeOpener(kind, dir.path);
    // One views database for the store, as one data dir keeps: it holds every episode.
    const views = open(new BetterSqlite3(join(dir.path, 'views.sqlite')));
    const managerOf = (store: EventStore, episodeId: string, harness: ConstructorParameters<typeof HarnessRuntime>[0]): RuntimeManager =>
      new RuntimeManager({
        openInvocations: openInvocationsIndex(store, views),
        compiled: compiledScenario(),
        manifest: manifest(),
        runtime: new HarnessRuntime(harness),
        store,
        episodeId,
        clock: steppingClock(),
      });
    /** Admits and dispatches one tool call, then the engine dies (the invocation never returns). */
    const dispatchThenDie = (reached: () => void): ConstructorParameters<typeof HarnessRuntime>[0] => async (request, _snapshot, port) => {
      const admitted = await port!.admit(requestOf(port!));
      if (admitted.admitted) await port!.dispatch(admitted.action_instance_id);
      reached();
      await new Promise<never>(() => undefined);
      return probeResult(request, []);
    };

    const first = open(openStore());
    let reachedA: () => void = () => undefined;
    const dispatchedA = new Promise<void>((resolve) => (reachedA = resolve));
    const engineA = managerOf(first, A, dispatchThenDie(reachedA));
    await engineA.start();
    void engineA.advance(1);
    await dispatchedA;

    // B starts (and recovers its own episode) while A's invocation is open with a dispatched action.
    let reachedB: () => void = () => undefined;
    const dispatchedB = new Promise<void>((resolve) => (reachedB = resolve));
    const engineB = managerOf(first, B, dispatchThenDie(reachedB));
    await engineB.start();
    void engineB.advance(1);
    await dispatchedB;
    const streamA = invocationStream(A, INVOCATION);
    const streamB = invocationStream(B, INVOCATION);
    expect(streamA).not.toBe(streamB);
    const interrupted = ['InvocationOpened', 'InvocationActivated', 'ToolActionAdmitted', 'ToolActionDispatched'];
    expect(await typesOf(first, streamA)).toEqual(interrupted);
    expect(await typesOf(first, streamB)).toEqual(interrupted);

    // Both engines died. Episode A's engine comes back and recovers.
    const second = open(openStore());
    const schedulerB = await typesOf(second, schedulerStream(B, POLICY, PARTICIPANT));
    const recoveredA = managerOf(second, A, async (request) => probeResult(request, []));
    await recoveredA.start();
    expect(await recoveredA.getOperation(TOOL)).toMatchObject({ episode_id: A, settlement: 'indeterminate' });
    expect(recoveredA.schedulerStatus(POLICY, PARTICIPANT)).toMatchObject({ status: 'stopped', unresolved: new Set([TOOL]) });
    await recoveredA.close();
    expect(await typesOf(second, streamA)).toEqual([...interrupted, 'ToolActionSettled', 'InvocationClosed']);
    // B's invocation and scheduler are exactly as its engine left them.
    expect(await typesOf(second, streamB)).toEqual(interrupted);
    expect(await typesOf(second, schedulerStream(B, POLICY, PARTICIPANT))).toEqual(schedulerB);
    expect(schedulerB).not.toContain('AttemptFinished');

    const rows = sqliteViews(views);
    await new ProjectionRunner({ store: second, views: rows, projections: ALL_PROJECTIONS }).catchUp();
    expect(listEpisodes(rows)).toEqual([A, B]);
    expect(listOpenInvocations(rows).map((row) => [row.episode_id, row.invocation_action_instance_id, row.stream])).toEqual([[B, INVOCATION, streamB]]);
    expect(getOperation(rows, A, INVOCATION)).toMatchObject({ episode_id: A, state: 'settled', settlement: 'threw' });
    expect(getOperation(rows, B, INVOCATION)).toMatchObject({ episode_id: B, state: 'dispatched', settlement: null });
    expect(childOperations(rows, A, INVOCATION).map((op) => [op.operation_id, op.settlement])).toEqual([[TOOL, 'indeterminate']]);
    expect(childOperations(rows, B, INVOCATION).map((op) => [op.operation_id, op.state, op.settlement])).toEqual([[TOOL, 'dispatched', null]]);
    expect(listSchedulers(rows, { episode: A }).map((s) => [s.status, s.unresolved_action_ids])).toEqual([['stopped', [TOOL]]]);
    expect(listSchedulers(rows, { episode: B }).map((s) => [s.status, s.unresolved_action_ids])).toEqual([['running', []]]);
    expect(rows.participantHistory.closedInvocations({ episode: A }).map((row) => row.invocation)).toEqual([INVOCATION]);
    expect(rows.participantHistory.closedInvocations({ episode: B })).toEqual([]);

    // Then B's engine comes back: it recovers its own invocation and leaves A's history as it was.
    const historyA = await typesOf(second, streamA);
    const schedulerA = await typesOf(second, schedulerStream(A, POLICY, PARTICIPANT));
    const recoveredB = managerOf(second, B, async (request) => probeResult(request, []));
    await recoveredB.start();
    expect(await recoveredB.getOperation(TOOL)).toMatchObject({ episode_id: B, settlement: 'indeterminate' });
    await recoveredB.close();
    expect(await typesOf(second, streamB)).toEqual([...interrupted, 'ToolActionSettled', 'InvocationClosed']);
    expect(await typesOf(second, streamA)).toEqual(historyA);
    expect(await typesOf(second, schedulerStream(A, POLICY, PARTICIPANT))).toEqual(schedulerA);
    await new ProjectionRunner({ store: second, views: rows, projections: ALL_PROJECTIONS }).catchUp();
    expect(listOpenInvocations(rows)).toEqual([]);
    expect(rows.participantHistory.closedInvocations({}).map((row) => [row.episode, row.invocation])).toEqual([
      [A, INVOCATION],
      [B, INVOCATION],
    ]);
  });
});
