import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { openPostgresEventStore } from '../../../adapters/event-store/postgres/postgres-event-store';
import type { RecordedEvent } from '../../../domain/ports/event-store';
import type { LeaseEvent } from '../../../domain/lease';
import type { InvocationEvent } from '../../../domain/invocation';
import type { SchedulerEvent } from '../../../domain/scheduler';
import { INVOCATION_STREAM_PREFIX, leaseStream, schedulerStream } from '../../../domain/streams';
import { startPostgresServer, type PostgresServer } from '../event-store/postgres/support/postgres-server';
import { participantOf, PARTICIPANT, POLICY } from '../../domain/application/support/world';

/** The episode the engine children run (specs/adapters/engine/children/lease-engine-child.ts). */
const EPISODE = 'shared-episode';

/**
 * Several engines on one PostgreSQL store (docs/event-stores.md): two engine processes share the
 * participants through leases in the store. One is SIGKILLed mid-invocation; once its leases expire
 * the other takes exactly its participants over and recovers exactly their invocations (dispatched
 * tool actions become indeterminate, never withheld). The store's events show that no two engines
 * ever held one participant, and that every attempt was started by the engine holding its lease.
 */
const CHILD = resolve(__dirname, 'children/lease-engine-child.ts');
const LEASE_MS = 1500;
const FIRST = [PARTICIPANT, participantOf('agent-1')];
const SECOND = [participantOf('agent-2'), participantOf('agent-3')];

interface Engine {
  readonly owner: string;
  readonly child: ChildProcessWithoutNullStreams;
  /** Whole stdout lines so far. */
  lines(): string[];
  waitFor(what: string, holds: (lines: string[]) => boolean): Promise<void>;
  exited: Promise<NodeJS.Signals | null>;
}

/** `holdFrom`: from that dispatch on, the engine's tool never answers (its H line names the call). */
const startEngine = (url: string, owner: string, claims: readonly string[], holdFrom?: number): Engine => {
  const args = [CHILD, url, owner, claims.join(','), String(LEASE_MS), ...(holdFrom === undefined ? [] : [String(holdFrom)])];
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const watchers: Array<() => void> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const watcher of watchers.splice(0)) watcher();
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<NodeJS.Signals | null>((resolveExit) => child.on('exit', (_code, signal) => resolveExit(signal)));
  const lines = (): string[] => out.split('\n').slice(0, -1);
  return {
    owner,
    child,
    lines,
    exited,
    waitFor: (what, holds) =>
      new Promise<void>((resolveWait, reject) => {
        const bound = setTimeout(() => reject(new Error(`engine ${owner} never got to: ${what}\nstderr: ${err}`)), 45_000);
        const check = (): void => {
          if (holds(lines())) {
            clearTimeout(bound);
            resolveWait();
          } else watchers.push(check);
        };
        void exited.then(() => {
          if (!holds(lines())) {
            clearTimeout(bound);
            reject(new Error(`engine ${owner} exited before: ${what}\nstderr: ${err}`));
          }
        });
        check();
      }),
  };
};

const tookAll = (participants: readonly string[]) => (lines: string[]): boolean => {
  const taken = new Set(lines.filter((line) => line.startsWith('TOOK ')).flatMap((line) => line.slice(5).split(',')));
  return participants.every((participant) => taken.has(participant));
};

const started = (engine: Engine): string[] => engine.lines().filter((line) => line.startsWith('S ')).map((line) => line.slice(2));
const participantOfInvocation = (invocationId: string): string => invocationId.split(':')[1]!;

describe('several engines on one PostgreSQL store', () => {
  let server: PostgresServer;

  beforeAll(async () => {
    server = await startPostgresServer();
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  it('hands a SIGKILLed engine\'s participants, and only those, to the other after its leases expire, with their recovery', async () => {
    const first = startEngine(server.url, 'engine-a', FIRST, 6);
    await first.waitFor('taking its participants', tookAll(FIRST));
    const second = startEngine(server.url, 'engine-b', SECOND);
    try {
      await second.waitFor('taking its participants', tookAll(SECOND));
      // Both run; the first has invocations with dispatched tool calls in hand when it dies.
      // Killed once its output shows a dispatch whose tool will never answer (from its sixth on): a
      // dispatch read without its completion may have completed in the meantime, on a loaded machine.
      const outstanding = (lines: string[]): boolean => lines.some((line) => line.startsWith('H '));
      await first.waitFor('dispatching a tool call still running', outstanding);
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
      await second.waitFor("taking the killed engine's participants", tookAll(FIRST));
      const seen = second.lines().length;
      await second.waitFor('running on', (lines) => lines.length > seen + 20);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
      first.child.kill('SIGKILL');
    }

    const store = openPostgresEventStore({ connectionString: server.url });
    const all = await store.readAll();
    await store.close();
    if (all.kind !== 'read') throw new Error(all.reason);
    const events = all.events;

    // Leases: per participant, a new owner only after the previous one's expiry (or release).
    const leaseEvents = (participant: string): Array<RecordedEvent & { data: LeaseEvent }> =>
      events.filter((e) => e.stream === leaseStream(EPISODE, participant)) as Array<RecordedEvent & { data: LeaseEvent }>;
    const holders = new Map<string, Array<{ owner: string; from: bigint; to: bigint }>>();
    for (const participant of [...FIRST, ...SECOND]) {
      let holder: { owner: string; expiresAt: number } | null = null;
      const intervals: Array<{ owner: string; from: bigint; to: bigint }> = [];
      for (const recorded of leaseEvents(participant)) {
        const event = recorded.data;
        if (event.type === 'LeaseAcquired') {
          if (holder !== null && holder.owner !== event.owner) expect(Date.parse(event.at)).toBeGreaterThanOrEqual(holder.expiresAt);
          const last = intervals[intervals.length - 1];
          if (last !== undefined && last.owner !== event.owner) last.to = recorded.position;
          if (last === undefined || last.owner !== event.owner) intervals.push({ owner: event.owner, from: recorded.position, to: BigInt(Number.MAX_SAFE_INTEGER) });
          holder = { owner: event.owner, expiresAt: Date.parse(event.expires_at) };
        } else if (event.type === 'LeaseRenewed') {
          expect(event.owner).toBe(holder?.owner);
          holder = { owner: event.owner, expiresAt: Date.parse(event.expires_at) };
        } else {
          expect(event.owner).toBe(holder?.owner);
          const last = intervals[intervals.length - 1];
          if (last !== undefined) last.to = recorded.position;
          holder = null;
        }
      }
      holders.set(participant, intervals);
    }
    for (const participant of FIRST) {
      expect(holders.get(participant)?.map((interval) => interval.owner)).toEqual(['engine-a', 'engine-b']);
      const taken = leaseEvents(participant).find((e) => e.data.type === 'LeaseAcquired' && e.data.owner === 'engine-b');
      expect(taken?.data).toMatchObject({ taken_from: 'engine-a' });
    }
    for (const participant of SECOND) expect(holders.get(participant)?.map((interval) => interval.owner)).toEqual(['engine-b']);

    // Every attempt an engine ran was started while it held that participant's lease.
    const attemptPosition = new Map<string, bigint>();
    for (const participant of [...FIRST, ...SECOND]) {
      for (const recorded of events.filter((e) => e.stream === schedulerStream(EPISODE, POLICY, participant))) {
        const event = recorded.data as unknown as SchedulerEvent;
        if (event.type === 'AttemptStarted') attemptPosition.set(event.action_instance_id, recorded.position);
      }
    }
    const startedBy = [...started(first).map((id) => ['engine-a', id] as const), ...started(second).map((id) => ['engine-b', id] as const)];
    expect(started(first).length).toBeGreaterThan(0);
    for (const [owner, invocationId] of startedBy) {
      const position = attemptPosition.get(invocationId);
      const intervals = holders.get(participantOfInvocation(invocationId)) ?? [];
      const during = intervals.find((interval) => position !== undefined && interval.from < position && position < interval.to);
      expect([invocationId, during?.owner]).toEqual([invocationId, owner]);
    }

    // Recovery: exactly the killed engine's open invocations, each closed by the other after it took over.
    const invocationEvents = events.filter((e) => e.stream.startsWith(INVOCATION_STREAM_PREFIX));
    const recoveredClose = invocationEvents.filter((e) => (e.data as unknown as InvocationEvent).type === 'InvocationClosed' && (e.data as { recovered?: boolean }).recovered === true);
    expect(recoveredClose.length).toBeGreaterThan(0);
    for (const recorded of recoveredClose) {
      const invocationId = (recorded.data as unknown as { invocation_action_instance_id: string }).invocation_action_instance_id;
      expect([invocationId, FIRST.includes(participantOfInvocation(invocationId))]).toEqual([invocationId, true]);
      // Started by the killed engine: its attempt lies in that engine's lease (its S line may not have
      // reached the spec before the kill, which can land right after the attempt became durable).
      const startedAt = attemptPosition.get(invocationId);
      const startedDuring = (holders.get(participantOfInvocation(invocationId)) ?? []).find(
        (interval) => startedAt !== undefined && interval.from < startedAt && startedAt < interval.to,
      );
      expect([invocationId, startedDuring?.owner]).toEqual([invocationId, 'engine-a']);
      const takenAt = holders.get(participantOfInvocation(invocationId))![1]!.from;
      expect(recorded.position > takenAt).toBe(true);
    }
    // A dispatched tool action is completed or indeterminate, never withheld; every invocation is closed.
    const dispatched = new Set<string>();
    const settlements = new Map<string, string>();
    const opened = new Set<string>();
    const closed = new Set<string>();
    for (const recorded of invocationEvents) {
      const event = recorded.data as unknown as InvocationEvent;
      if (event.type === 'ToolActionDispatched') dispatched.add(event.action_instance_id);
      if (event.type === 'ToolActionSettled') settlements.set(event.action_instance_id, event.settlement);
      if (event.type === 'InvocationOpened') opened.add(event.invocation_action_instance_id);
      if (event.type === 'InvocationClosed') closed.add(event.invocation_action_instance_id);
    }
    for (const id of dispatched) expect([id, settlements.get(id)]).toEqual([id, expect.stringMatching(/^(completed|indeterminate)$/)]);
    const acknowledged = first.lines().filter((line) => line.startsWith('D ')).map((line) => line.slice(2));
    for (const id of acknowledged) expect([id, settlements.get(id)]).toEqual([id, expect.stringMatching(/^(completed|indeterminate)$/)]);
    expect([...settlements.values()]).toContain('indeterminate');
    expect([...opened].filter((id) => !closed.has(id))).toEqual([]);
  }, 120_000);
});
