import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { RuntimeManager, HarnessRuntime, invocationEventCodec } from '../../../domain/application';
import {
  foldInvocationEvents,
  unresolvedIndeterminateActions,
  type InvocationEvent,
  type InvocationState,
  type ToolActionRecord,
} from '../../../domain/invocation';
import { INVOCATION_STREAM_PREFIX } from '../../../domain/streams';
import { probeResult } from '../../../examples/harness/scripted-harness';
import { makeTempDir, type TempDir } from '../../adapters/event-store/support/temp-dir';
import { compiledScenario, manifest, openSqlite, participantOf, PARTICIPANT, POLICY } from './support/world';
import { openInvocationsIndex } from '../../../adapters/views/open-invocations-index';

/**
 * The durability contract under SIGKILL (SPEC.md section 7). A child engine runs many concurrent
 * invocations with tool calls on SQLite and is killed at random moments, many times. After each kill,
 * a restarted engine recovers, and then: every acknowledged dispatch is completed or indeterminate
 * (never withheld), every acknowledged admission is present, no refused call is recorded, no action
 * settles twice, and every participant with an indeterminate action has its scheduler stopped.
 */
const CHILD = resolve(__dirname, 'children/fault-child.ts');
const EXTRA_AGENTS = 7;
const KILLS = 12;
const BUDGET_MS = 40_000;
const PARTICIPANTS = [PARTICIPANT, ...Array.from({ length: EXTRA_AGENTS }, (_, i) => participantOf(`agent-${i + 1}`))];

type Acks = { admitted: Set<string>; dispatched: Set<string>; completed: Set<string>; refused: Array<[string, string]> };

const runAndKill = (dir: string): Promise<Acks> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, String(EXTRA_AGENTS)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let killTimer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (killTimer === undefined && out.includes('READY\n')) {
        killTimer = setTimeout(() => child.kill('SIGKILL'), 30 + Math.floor(Math.random() * 400));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`the child ended on its own: ${err}`));
      const acks: Acks = { admitted: new Set(), dispatched: new Set(), completed: new Set(), refused: [] };
      // Only whole lines were acknowledged; a torn last line was not.
      for (const line of out.split('\n').slice(0, -1)) {
        const [kind, id, callId] = line.split(' ');
        if (id === undefined) continue;
        if (kind === 'A') acks.admitted.add(id);
        else if (kind === 'D') acks.dispatched.add(id);
        else if (kind === 'C') acks.completed.add(id);
        else if (kind === 'R' && callId !== undefined) acks.refused.push([id, callId]);
      }
      resolvePromise(acks);
    });
  });

const settlementOf = (record: ToolActionRecord | undefined): string | undefined =>
  record === undefined ? undefined : record.phase === 'settled' ? record.settlement.kind : record.phase;

describe('SIGKILL at random moments', () => {
  let dir: TempDir;

  beforeAll(() => {
    dir = makeTempDir('runtime-sigkill');
  });

  afterAll(() => dir.remove());

  it('never forgets an acknowledged call, and recovery stops the schedulers with indeterminate actions', async () => {
    const started = Date.now();
    const total = { admitted: 0, dispatched: 0, indeterminate: 0, kills: 0 };
    for (let kill = 0; kill < KILLS && Date.now() - started < BUDGET_MS; kill++) {
      const acks = await runAndKill(dir.path);
      total.kills++;

      const store = openSqlite(join(dir.path, 'events.sqlite'));
      const views = new BetterSqlite3(join(dir.path, 'views.sqlite'));
      const manager = new RuntimeManager({
        compiled: compiledScenario({ extraAgents: EXTRA_AGENTS, maxActionAttempts: 100000, cadenceTicks: 1, failurePolicy: 'continue' }),
        manifest: manifest(),
        runtime: new HarnessRuntime(async (request) => probeResult(request, [])),
        store,
        openInvocations: openInvocationsIndex(store, views),
        episodeId: 'fault-episode',
        clock: () => new Date(),
      });
      await manager.start();

      const all = await store.readAll();
      if (all.kind !== 'read') throw new Error(all.reason);
      const byStream = new Map<string, InvocationEvent[]>();
      const settlements = new Map<string, number>();
      for (const recorded of all.events) {
        if (!recorded.stream.startsWith(INVOCATION_STREAM_PREFIX)) continue;
        const event = invocationEventCodec.fromRecorded(recorded);
        if (typeof event === 'string') throw new Error(event);
        const list = byStream.get(event.invocation_action_instance_id) ?? [];
        list.push(event);
        byStream.set(event.invocation_action_instance_id, list);
        if (event.type === 'ToolActionSettled') settlements.set(event.action_instance_id, (settlements.get(event.action_instance_id) ?? 0) + 1);
      }
      const states = new Map<string, InvocationState>();
      for (const [id, events] of byStream) states.set(id, foldInvocationEvents(events));
      const recordOf = (actionId: string): ToolActionRecord | undefined => {
        const state = states.get(actionId.slice(0, actionId.lastIndexOf(':tool=')));
        if (state === undefined || state.status !== 'opened') return undefined;
        const position = state.positionByActionId.get(actionId);
        return position === undefined ? undefined : state.toolActions[position];
      };

      for (const id of acks.admitted) expect([id, recordOf(id)?.actionInstanceId]).toEqual([id, id]);
      for (const id of acks.dispatched) expect([id, settlementOf(recordOf(id))]).toEqual([id, expect.stringMatching(/^(completed|indeterminate)$/)]);
      for (const id of acks.completed) expect([id, settlementOf(recordOf(id))]).toEqual([id, 'completed']);
      for (const [invocationId, callId] of acks.refused) {
        const state = states.get(invocationId);
        expect([invocationId, callId, state?.status === 'opened' && state.positionByToolCallId.has(callId)]).toEqual([invocationId, callId, false]);
      }
      for (const [actionId, count] of settlements) expect([actionId, count]).toEqual([actionId, 1]);

      for (const state of states.values()) {
        if (state.status !== 'opened') continue;
        expect([state.portValues.invocation_action_instance_id, state.lifecycle.status]).toEqual([state.portValues.invocation_action_instance_id, 'closed']);
        expect(state.openCount).toBe(0);
        if (unresolvedIndeterminateActions(state).length > 0) {
          const scheduler = manager.schedulerStatus(POLICY, state.portValues.participant_address);
          expect([state.portValues.participant_address, scheduler?.status]).toEqual([state.portValues.participant_address, 'stopped']);
        }
      }
      for (const participant of PARTICIPANTS) {
        const scheduler = manager.schedulerStatus(POLICY, participant);
        expect(scheduler?.inFlight.size).toBe(0);
        if ((scheduler?.unresolved.size ?? 0) > 0) expect(scheduler?.status).toBe('stopped');
      }

      total.admitted += acks.admitted.size;
      total.dispatched += acks.dispatched.size;

      // The operator resolves what was left indeterminate and restarts the schedulers for the next round.
      for (const participant of PARTICIPANTS) {
        const scheduler = manager.schedulerStatus(POLICY, participant);
        for (const actionId of scheduler?.unresolved ?? []) {
          total.indeterminate++;
          expect(await manager.resolve(actionId, 'happened', 'content.participant-observation')).toEqual({ ok: true });
        }
        if (scheduler?.status === 'stopped') expect(await manager.restartScheduler(participant)).toEqual({ ok: true });
      }
      await manager.close();
      await store.close();
      views.close();
    }
    expect(total.kills).toBeGreaterThanOrEqual(5);
    expect(total.admitted).toBeGreaterThan(0);
    expect(total.dispatched).toBeGreaterThan(0);
    // Kills land between dispatch and outcome: recovery had indeterminate actions to stop schedulers for.
    expect(total.indeterminate).toBeGreaterThan(0);
  }, 90_000);
});
