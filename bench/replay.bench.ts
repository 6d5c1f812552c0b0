/**
 * Replay benchmark (npm run bench:replay [events]): rebuilds the participant history projection over a
 * temp SQLite event store of realistic invocation and scheduler streams (1,000,000 events by default),
 * and reads the same rows with raw better-sqlite3 `iterate()` + `JSON.parse` in the same run. Reports
 * events/s for both and their ratio (target >= 0.8). Runs in a temp dir, never in esdata/.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as E from 'fp-ts/Either';
import { actionContractAddress, autonomousPolicyAddress, clockAddress, observationBoundaryAddress, observationPoint, outerActionInstanceId, participantAddress, serviceAddress, toolActionInstanceId, toolAffordanceAddress } from '../domain/addresses';
import { invocationDecider, type InvocationCommand, type InvocationEvent, type InvocationState } from '../domain/invocation';
import { SCHEDULER_CHECKPOINT_ATTEMPTS, schedulerDecider, type SchedulerCommand, type SchedulerEvent, type SchedulerPolicy, type SchedulerState } from '../domain/scheduler';
import { invocationStream, schedulerStream } from '../domain/streams';
import { openSqliteEventStore } from '../adapters/event-store/sqlite/sqlite-event-store';
import { SEAL_EVERY } from '../adapters/event-store/chained-event-store';
import { MetadataColumnWriter, metadataOfColumn, type MetadataColumn } from '../adapters/event-store/sqlite/metadata-column';
import { canonicalJson } from '../domain/integrity/canonical-json';
import { CHAIN_VERSION, dataDigest, linkDigestOfData, linkMetadataJson } from '../domain/integrity/chain';
import { ROLLING_START, SEAL_EVENT_TYPE, SEAL_STREAM, SealDigest, sealData } from '../domain/integrity/seal';
import type { JsonValue } from '../domain/ports/event-store';
import { prepareDatabase, streamIdLookup } from '../adapters/event-store/sqlite/schema';
import { ProjectionRunner, type Projection } from '../projections/runner';
import { FOLLOWED_PROJECTIONS } from '../projections';
import { participantHistoryProjection, storedHistory, type HistoryFilter, type ParticipantHistoryViews } from '../projections/participant-history';
import { openViewsDatabase } from '../adapters/views/views-database';
import { sqliteViews } from '../adapters/views/sqlite';
import { elapsedMs } from './support/stats';
import { openBenchChainedStore } from './support/world';
import { printTable } from './support/table';

const TARGET_RATIO = 0.8;
/**
 * The participant history rebuild's page, read in one store read. Bigger pages read at once measured
 * slower (10,000: 0.8-0.95 x the rate): a page's events stay reachable until its transaction ends, and
 * 10,000 of them outgrow V8's young generation. Every view's catch-up runs with the runner's default
 * page, read 1,000 events at a time.
 */
const PAGE_SIZE = 1000;
/** Invocations of different participants running at the same time: their events interleave in the log. */
const CONCURRENT_INVOCATIONS = 8;
const PARTICIPANTS = 64;
const TEMPLATE_PARTICIPANT = participantAddress('template-participant');
const POLICY = autonomousPolicyAddress('participant-behavior');

type StoredEvent = { readonly stream: string; readonly type: string; readonly data: string };

const decideAll = <C, Ev, S>(
  decider: { decide: (c: C, s: S) => E.Either<{ code: string }, readonly Ev[]>; evolve: (s: S, e: Ev) => S; initialState: () => S },
  commands: readonly C[],
): Ev[] => {
  let state = decider.initialState();
  const events: Ev[] = [];
  for (const command of commands) {
    const decision = decider.decide(command, state);
    if (E.isLeft(decision)) throw new Error(`the template was refused: ${decision.left.code}`);
    for (const event of decision.right) {
      state = decider.evolve(state, event);
      events.push(event);
    }
  }
  return events;
};

/**
 * One attempt as the engine records it, produced by the real deciders: the scheduler starts it, the
 * invocation admits four tool calls (three complete, one times out), returns, the attempt finishes.
 */
export const templateAttempt = (): {
  scheduler: StoredEvent[];
  invocation: StoredEvent[];
  finish: StoredEvent[];
  /** The checkpoint the decider records as attempt `attempt` (a multiple of SCHEDULER_CHECKPOINT_ATTEMPTS) finishes. */
  checkpoint: (attempt: number) => StoredEvent;
} => {
  const affordance = toolAffordanceAddress('participant-behavior', 'portal-client');
  const probe = actionContractAddress('probe-customer-portal-login');
  const outer = actionContractAddress('run-harness');
  const view = observationBoundaryAddress('participant-view');
  const portal = serviceAddress('customer-portal', 'http');
  const point = observationPoint(clockAddress('shared'), 0, 1);
  const invocationId = outerActionInstanceId(POLICY, TEMPLATE_PARTICIPANT, 1);
  const policy: SchedulerPolicy = {
    policy_address: POLICY,
    participant_address: TEMPLATE_PARTICIPANT,
    clock_address: clockAddress('shared'),
    action_order: [outer],
    start_tick: 1,
    cadence_ticks: 1,
    max_action_attempts: 10,
    max_in_flight: 1,
    failure_policy: 'continue',
  };
  let second = 0;
  const at = (): string => new Date(Date.UTC(2026, 3, 11, 10, 0, second++)).toISOString();
  const result = (actionId: string, contract: string) => ({
    status: 'succeeded',
    participant_address: TEMPLATE_PARTICIPANT,
    episode_id: 'episode-0001',
    action_instance_id: actionId,
    action_contract_address: contract,
    observation_point: point,
    evidence_refs: ['evidence.participant-transcript'],
  });
  const commands: InvocationCommand[] = [
    {
      type: 'OpenInvocation',
      at: at(),
      portValues: {
        invocation_action_instance_id: invocationId,
        participant_address: TEMPLATE_PARTICIPANT,
        episode_id: 'episode-0001',
        participant_implementation_ref: 'harness-runtime',
        execution_scope_ref: POLICY,
        execution_generation: 0,
        observation_point: point,
      },
      outerAction: { action_contract_address: outer, observation_boundary_address: view, target_addresses: [portal], actor_provenance: 'participant-implementation:harness-runtime@1.0.0' },
      admissionContext: {
        policy_profile: 'participant-autonomous-execution/v1',
        limits: { max_tool_actions_per_invocation: 16, max_concurrent_tool_actions_per_invocation: 4 },
        affordance_bindings: [
          { tool_affordance_address: affordance, action_contract_address: probe, participant_address: TEMPLATE_PARTICIPANT, observation_boundary_addresses: [view], target_addresses: [portal] },
        ],
        shared_time_bound_actions: [],
        offers: [
          { binding_id: 'offer-probe', action_contract_address: probe, target_addresses: [portal], participant_implementation_ref: 'harness-runtime', constraint_refs: [], evidence_refs: [], max_action_attempts: 4, max_in_flight: 2, timeout_seconds: 30, max_retries: 0 },
        ],
        boundary_evidence_refs: { [view]: ['evidence.participant-transcript'] },
        withheld_refs: [],
      },
    },
    { type: 'ActivateInvocation', at: at() },
  ];
  for (let ordinal = 1; ordinal <= 4; ordinal++) {
    const id = toolActionInstanceId(invocationId, ordinal);
    commands.push({
      type: 'AdmitToolAction',
      at: at(),
      crossingPolicyInstalled: false,
      request: {
        tool_call_id: `call-${ordinal}`,
        invocation_action_instance_id: invocationId,
        participant_address: TEMPLATE_PARTICIPANT,
        episode_id: 'episode-0001',
        participant_implementation_ref: 'harness-runtime',
        tool_affordance_address: affordance,
        action_contract_address: probe,
        observation_boundary_address: view,
        target_addresses: [portal],
        execution_scope_ref: POLICY,
        execution_generation: 0,
      },
    });
    commands.push({ type: 'DispatchToolAction', at: at(), actionInstanceId: id });
    commands.push(
      ordinal === 4
        ? { type: 'ReportToolActionUnknown', at: at(), actionInstanceId: id, reason: 'timeout' }
        : { type: 'CompleteToolAction', at: at(), actionInstanceId: id, result: result(id, probe) },
    );
  }
  commands.push({ type: 'CloseInvocation', at: at(), close: { outcome: 'returned', result: result(invocationId, outer) } });
  const invocationEvents = decideAll<InvocationCommand, InvocationEvent, InvocationState>(
    {
      initialState: invocationDecider.initialState,
      evolve: invocationDecider.evolve,
      decide: (command, state) => {
        const decision = invocationDecider.decide(command, state);
        return decision.answer.kind === 'refused' ? E.left(decision.answer.refusal) : E.right(decision.events);
      },
    },
    commands,
  );
  const startedAt = at();
  const finishedAt = at();
  const finish = (attempt: number): SchedulerCommand => ({ type: 'FinishAttempt', policy, attempt, outcome: 'succeeded', indeterminate_action_ids: [], at: finishedAt });
  const schedulerEvents = decideAll<SchedulerCommand, SchedulerEvent, SchedulerState>(schedulerDecider, [
    { type: 'StartAttempt', policy, tick: 1, at: startedAt },
    finish(1),
  ]);
  // As the engine stores its events: their data in canonical JSON.
  const stored = (stream: string) => (event: { type: string }): StoredEvent => ({ stream, type: event.type, data: canonicalJson(event as unknown as JsonValue) });
  const inSchedulerStream = stored(schedulerStream('episode-0001', POLICY, TEMPLATE_PARTICIPANT));
  // Every attempt before it finished, its tick the attempt's number (the numbering fillStore gives them).
  const checkpoint = (attempt: number): StoredEvent => {
    const finishing: SchedulerState = { ...schedulerDecider.initialState(), attemptsStarted: attempt, inFlight: new Map([[attempt, invocationId]]), lastTick: attempt };
    const decision = schedulerDecider.decide(finish(attempt), finishing);
    const recorded = E.isRight(decision) ? decision.right.find((event) => event.type === 'SchedulerCheckpointed') : undefined;
    if (recorded === undefined) throw new Error(`the scheduler recorded no checkpoint as attempt ${attempt} finished`);
    return inSchedulerStream(recorded);
  };
  return {
    scheduler: schedulerEvents.slice(0, 1).map(inSchedulerStream),
    invocation: invocationEvents.map(stored(invocationStream('episode-0001', invocationId))),
    finish: schedulerEvents.slice(1).map(inSchedulerStream),
    checkpoint,
  };
};

/**
 * A scheduler event of the template attempt (attempt 1, tick 1) as attempt `attempt` of its participant
 * records it, at the tick of the same number: a scheduler folds attempt numbers and ticks, and a
 * checkpoint (template.checkpoint) states what these numbers give. Member order is kept (canonical).
 */
const numbered = (event: StoredEvent, attempt: number): StoredEvent => {
  if (attempt === 1) return event;
  const data = JSON.parse(event.data) as { attempt?: number; tick?: number };
  if (data.attempt !== undefined) data.attempt = attempt;
  if (data.tick !== undefined) data.tick = attempt;
  return { ...event, data: JSON.stringify(data) };
};

/**
 * The chain links of a history written straight into the table, as the engine's chained store writes
 * them (docs/integrity.md): each event linked to the one before it in its stream, the link stored in
 * the metadata column as the SQLite store stores it.
 */
class HistoryLinks {
  private readonly heads = new Map<string, string>();
  private readonly column = new MetadataColumnWriter();
  /** The running digest of the linked events since the last seal, and the count the seals before it covered. */
  private unsealed = new SealDigest(CHAIN_VERSION, ROLLING_START);
  private sealedCount = 0;

  /** `data` is the event's canonical JSON (checked every so often: the template's members are in canonical order). */
  columnOf(stream: string, revision: number, type: string, data: string, check: boolean): MetadataColumn {
    if (check && canonicalJson(JSON.parse(data) as JsonValue) !== data) throw new Error(`a ${type} of the history is not canonical JSON: its link would not verify`);
    const previous = this.heads.get(stream) ?? null;
    const digest = linkDigestOfData(previous, stream, revision, dataDigest(type, data));
    this.heads.set(stream, digest);
    this.unsealed.add(digest);
    return this.column.columnOf(linkMetadataJson({ v: CHAIN_VERSION, digest, previous }));
  }

  /** The seal an engine writes after every SEAL_EVERY events, covering through `through`, when one is due. */
  sealDue(through: number): StoredEvent | undefined {
    if (this.unsealed.count < SEAL_EVERY) return undefined;
    const count = this.sealedCount + this.unsealed.count;
    const rolling = this.unsealed.digest();
    this.sealedCount = count;
    this.unsealed = new SealDigest(CHAIN_VERSION, rolling);
    return { stream: SEAL_STREAM, type: SEAL_EVENT_TYPE, data: canonicalJson(sealData(BigInt(through), count, rolling) as unknown as JsonValue) };
  }
}

export type FillOptions = {
  /** Every event with its chain link and a seal every SEAL_EVERY events, as an engine writer stores them (fillLinkedStore also seals the tail). */
  readonly chained?: boolean;
};

/**
 * Fills the store file with about `target` events, in big transactions straight into its table. Each
 * participant's attempts are numbered 1, 2, 3... as its scheduler would have numbered them.
 */
export const fillStore = (path: string, target: number, options: FillOptions = {}): number => {
  const db = new BetterSqlite3(path);
  prepareDatabase(db, 5000);
  db.pragma('synchronous = OFF');
  const insert = db.prepare(
    'INSERT INTO events (stream, stream_id, revision, id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const links = options.chained === true ? new HistoryLinks() : undefined;
  const streamId = streamIdLookup(db);
  const template = templateAttempt();
  const templateInvocation = outerActionInstanceId(POLICY, TEMPLATE_PARTICIPANT, 1);
  const perAttempt = template.scheduler.length + template.invocation.length + template.finish.length;
  const attempts = Math.max(1, Math.round(target / perAttempt));
  const revisions = new Map<string, number>();
  let written = 0;
  let eventId = 0;
  const now = Date.now();
  const write = (event: StoredEvent, participant: string, invocationId: string): void => {
    const data = event.data.split(templateInvocation).join(invocationId).split(TEMPLATE_PARTICIPANT).join(participant);
    const stream = event.stream.split(templateInvocation).join(invocationId).split(TEMPLATE_PARTICIPANT).join(participant);
    const revision = revisions.get(stream) ?? 0;
    revisions.set(stream, revision + 1);
    const metadata = links === undefined ? null : links.columnOf(stream, revision, event.type, data, eventId % 997 === 0);
    const position = Number(insert.run(stream, streamId(stream), revision, `e${++eventId}`, event.type, data, metadata, now).lastInsertRowid);
    written++;
    const seal = links?.sealDue(position);
    if (seal !== undefined) {
      const sealRevision = revisions.get(SEAL_STREAM) ?? 0;
      revisions.set(SEAL_STREAM, sealRevision + 1);
      insert.run(SEAL_STREAM, streamId(SEAL_STREAM), sealRevision, `e${++eventId}`, seal.type, seal.data, links!.columnOf(SEAL_STREAM, sealRevision, seal.type, seal.data, false), now);
      written++;
    }
  };
  const writeGroup = db.transaction((first: number, count: number) => {
    const group: { participant: string; attempt: number; invocationId: string }[] = [];
    for (let i = 0; i < count; i++) {
      const index = first + i;
      const participant = participantAddress(`agent-${index % PARTICIPANTS}`);
      const attempt = Math.floor(index / PARTICIPANTS) + 1;
      group.push({ participant, attempt, invocationId: outerActionInstanceId(POLICY, participant, attempt) });
    }
    for (const g of group) for (const event of template.scheduler) write(numbered(event, g.attempt), g.participant, g.invocationId);
    // Round-robin: the group's invocations run at the same time.
    for (let e = 0; e < template.invocation.length; e++) {
      for (const g of group) write(template.invocation[e]!, g.participant, g.invocationId);
    }
    for (const g of group) {
      for (const event of template.finish) write(numbered(event, g.attempt), g.participant, g.invocationId);
      if (g.attempt % SCHEDULER_CHECKPOINT_ATTEMPTS === 0) write(template.checkpoint(g.attempt), g.participant, g.invocationId);
    }
  });
  const perTransaction = CONCURRENT_INVOCATIONS * 64;
  for (let first = 0; first < attempts; first += perTransaction) {
    for (let group = first; group < Math.min(attempts, first + perTransaction); group += CONCURRENT_INVOCATIONS) {
      writeGroup(group, Math.min(CONCURRENT_INVOCATIONS, attempts - group));
    }
  }
  db.close();
  return written;
};

/**
 * Fills the store file as fillStore does, every event linked and a seal every SEAL_EVERY events, then
 * seals the tail as the engine's sealer does (reading it back from the last seal): the history as an
 * engine writer leaves it, whose next seal continues from there.
 */
export const fillLinkedStore = async (path: string, target: number): Promise<number> => {
  const written = fillStore(path, target, { chained: true });
  const store = openBenchChainedStore(path);
  try {
    const sealed = await store.seal();
    if (sealed.kind === 'storage_failure') throw new Error(`sealing the history failed: ${sealed.reason}`);
  } finally {
    await store.close();
  }
  return written;
};

/** The floor: better-sqlite3 iterating the same rows and parsing each event's JSON, nothing else. */
export const rawReplay = (path: string): { events: number; ms: number } => {
  const db = new BetterSqlite3(path, { readonly: true });
  const start = process.hrtime.bigint();
  let events = 0;
  let checksum = 0;
  for (const row of db.prepare('SELECT position, stream, revision, id, type, data, metadata, recorded_at FROM events ORDER BY position').iterate() as Iterable<{ data: string; metadata: MetadataColumn }>) {
    const data = JSON.parse(row.data) as { type: string };
    // Metadata as the store keeps it: JSON text, or a chain link's bytes (what any reader of the column decodes).
    if (row.metadata !== null) metadataOfColumn(row.metadata);
    checksum += data.type.length;
    events++;
  }
  const ms = elapsedMs(start);
  db.close();
  if (checksum === 0) throw new Error('nothing was parsed');
  return { events, ms };
};

/**
 * The like-for-like floor of a projection: raw iterate() of every row, as rawReplay, but JSON.parse only
 * of the rows `parses` picks (by stream and type, as a projection decides before it reads the data).
 */
export const rawReplayParsing = (path: string, parses: (stream: string, type: string) => boolean): { events: number; ms: number } => {
  const db = new BetterSqlite3(path, { readonly: true });
  const start = process.hrtime.bigint();
  let events = 0;
  let checksum = 0;
  for (const row of db.prepare('SELECT position, stream, revision, id, type, data, metadata, recorded_at FROM events ORDER BY position').iterate() as Iterable<{ stream: string; type: string; data: string }>) {
    if (parses(row.stream, row.type)) checksum += Object.keys(JSON.parse(row.data) as object).length;
    events++;
  }
  const ms = elapsedMs(start);
  db.close();
  if (checksum === 0) throw new Error('nothing was parsed');
  return { events, ms };
};

/** Every view the engine follows, caught up from an empty views file: what a lost views file costs. */
export const allViewsCatchUp = async (path: string, viewsPath: string): Promise<{ events: number; ms: number }> => {
  const store = openSqliteEventStore({ path });
  if (store.kind === 'storage_failure') throw new Error(store.reason);
  const database = openViewsDatabase(viewsPath);
  if ('kind' in database) throw new Error(database.reason);
  const runner = new ProjectionRunner({ store, views: sqliteViews(database), projections: FOLLOWED_PROJECTIONS });
  const start = process.hrtime.bigint();
  const result = await runner.catchUp();
  const ms = elapsedMs(start);
  if (result.kind !== 'caught_up') throw new Error(`catching the views up failed: ${JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
  database.close();
  await store.close();
  return { events: result.applied, ms };
};

/** Reads every event and does nothing with it: what the store's read path and the runner cost alone. */
export const nothingProjection: Projection = { name: 'nothing', version: 1, setup: () => undefined, reset: () => undefined, apply: () => undefined };

export const projectionRebuild = async (
  path: string,
  viewsPath: string,
  projection: Projection<ParticipantHistoryViews>,
): Promise<{ events: number; ms: number; rows: number; queryMs: number; participantRows: number; participantQueryMs: number }> => {
  const store = openSqliteEventStore({ path });
  if (store.kind === 'storage_failure') throw new Error(store.reason);
  const database = openViewsDatabase(viewsPath);
  if ('kind' in database) throw new Error(database.reason);
  const views = sqliteViews(database);
  const runner = new ProjectionRunner({ store, views, projections: [projection], pageSize: PAGE_SIZE });
  const start = process.hrtime.bigint();
  const result = await runner.rebuild(projection.name);
  const ms = elapsedMs(start);
  if (result.kind !== 'caught_up') throw new Error(`the rebuild failed: ${JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
  // The view is an index: a query reads each closed invocation's stream and renders its history. The
  // whole history is the largest question; one participant's (1/64 of the invocations) a common one.
  const query = async (filter: HistoryFilter): Promise<{ rows: number; ms: number }> => {
    const queryStart = process.hrtime.bigint();
    const rendered = await storedHistory(views, store, filter);
    const queryMs = elapsedMs(queryStart);
    if (rendered.kind !== 'history') throw new Error(`the history could not be rendered: ${rendered.reason}`);
    return { rows: rendered.events.length, ms: queryMs };
  };
  const whole = await query({});
  const one = await query({ participant: participantAddress('agent-1') });
  views.close();
  await store.close();
  return { events: result.applied, ms, rows: whole.rows, queryMs: whole.ms, participantRows: one.rows, participantQueryMs: one.ms };
};

const main = async (): Promise<void> => {
  const target = Number(process.argv[2] ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'raes-replay-bench-'));
  try {
    const path = join(dir, 'events.sqlite');
    const fillStart = process.hrtime.bigint();
    const written = fillStore(path, target);
    process.stdout.write(`filled ${written} events in ${(elapsedMs(fillStart) / 1000).toFixed(1)} s\n\n`);

    rawReplay(path); // warm the page cache and the JIT
    const raw = rawReplay(path);
    const readPath = await projectionRebuild(path, join(dir, 'nothing.sqlite'), nothingProjection);
    const rebuild = await projectionRebuild(path, join(dir, 'views.sqlite'), participantHistoryProjection);
    const rawAfter = rawReplay(path);
    const rawBest = raw.ms <= rawAfter.ms ? raw : rawAfter;
    const perSecond = (run: { events: number; ms: number }) => (run.events / run.ms) * 1000;
    const ratio = perSecond(rebuild) / perSecond(rawBest);
    printTable(
      ['run', 'events', 'seconds', 'events/s'],
      [
        ['raw iterate() + JSON.parse', String(rawBest.events), (rawBest.ms / 1000).toFixed(2), perSecond(rawBest).toFixed(0)],
        ['store read path + runner, no-op projection', String(readPath.events), (readPath.ms / 1000).toFixed(2), perSecond(readPath).toFixed(0)],
        ['participant history rebuild', String(rebuild.events), (rebuild.ms / 1000).toFixed(2), perSecond(rebuild).toFixed(0)],
      ],
    );
    process.stdout.write(`\nhistory events rendered at query time: ${rebuild.rows} in ${(rebuild.queryMs / 1000).toFixed(2)} s (one participant's: ${rebuild.participantRows} in ${(rebuild.participantQueryMs / 1000).toFixed(2)} s)\n`);
    process.stdout.write(`ceiling over the store's read path (no-op / raw): ${(perSecond(readPath) / perSecond(rawBest)).toFixed(3)}\n`);
    process.stdout.write(`ratio rebuild / raw: ${ratio.toFixed(3)} (target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

// Run directly (npm run bench:replay); bench/run.ts imports the parts above.
if (require.main === module) void main();
