import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { RuntimeManager, HarnessRuntime, invocationEventCodec } from '../../../../domain/application';
import type { EventStore } from '../../../../domain/ports/event-store';
import {
  foldInvocationEvents,
  unresolvedIndeterminateActions,
  type InvocationEvent,
  type InvocationState,
  type ToolActionRecord,
} from '../../../../domain/invocation';
import { INVOCATION_STREAM_PREFIX } from '../../../../domain/streams';
import { probeResult } from '../../../../examples/harness/scripted-harness';
import { openInvocationsIndex } from '../../../../adapters/views/open-invocations-index';
import { compiledScenario, manifest, participantOf, PARTICIPANT, POLICY } from './world';

/**
 * The SIGKILL campaign both fault specs run (SPEC.md section 7): children/fault-child.ts runs many
 * concurrent invocations with tool calls and is killed, round after round. After each kill a restarted
 * engine recovers over the same store, and the campaign checks what the child acknowledged against what
 * the store holds.
 *
 * Odd rounds kill at a random moment after READY. Even rounds have the child hold its tool calls from
 * one dispatch on (they never complete) and kill it once a held call is acknowledged, so that at least
 * one kill in every campaign lands between a dispatch and its outcome, however the machine is loaded.
 */
const CHILD = resolve(__dirname, '../children/fault-child.ts');
export const EXTRA_AGENTS = 7;
const PARTICIPANTS = [PARTICIPANT, ...Array.from({ length: EXTRA_AGENTS }, (_, i) => participantOf(`agent-${i + 1}`))];

type Acks = { admitted: Set<string>; dispatched: Set<string>; completed: Set<string>; held: Set<string>; refused: Array<[string, string]> };

export interface CampaignOptions {
  readonly dir: string;
  readonly openStore: () => EventStore;
  /** Arguments after <dir> <extra agents>, e.g. a PostgreSQL connection string. */
  readonly childArgs?: readonly string[];
  readonly kills: number;
  readonly budgetMs: number;
}

export interface CampaignTotals {
  kills: number;
  admitted: number;
  dispatched: number;
  held: number;
  indeterminate: number;
}

/** How many dispatches the child lets complete before it holds the rest, in a holding round. */
const holdFrom = (): number => 1 + Math.floor(Math.random() * 20);

const runAndKill = (options: CampaignOptions, holding: boolean): Promise<Acks> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, options.dir, String(EXTRA_AGENTS), ...(options.childArgs ?? [])], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...(holding ? { FAULT_HOLD_FROM_DISPATCH: String(holdFrom()) } : {}) },
    });
    let out = '';
    let err = '';
    let killScheduled = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (killScheduled) return;
      if (holding && /^H /m.test(out)) {
        killScheduled = true;
        child.kill('SIGKILL');
      } else if (!holding && out.includes('READY\n')) {
        killScheduled = true;
        setTimeout(() => child.kill('SIGKILL'), 30 + Math.floor(Math.random() * 400));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`the child ended on its own: ${err}`));
      const acks: Acks = { admitted: new Set(), dispatched: new Set(), completed: new Set(), held: new Set(), refused: [] };
      // Only whole lines were acknowledged; a torn last line was not.
      for (const line of out.split('\n').slice(0, -1)) {
        const [kind, id, callId] = line.split(' ');
        if (id === undefined) continue;
        if (kind === 'A') acks.admitted.add(id);
        else if (kind === 'D') acks.dispatched.add(id);
        else if (kind === 'C') acks.completed.add(id);
        else if (kind === 'H') acks.held.add(id);
        else if (kind === 'R' && callId !== undefined) acks.refused.push([id, callId]);
      }
      resolvePromise(acks);
    });
  });

const settlementOf = (record: ToolActionRecord | undefined): string | undefined =>
  record === undefined ? undefined : record.phase === 'settled' ? record.settlement.kind : record.phase;

const invocationStates = async (store: EventStore): Promise<{ states: Map<string, InvocationState>; settlements: Map<string, number> }> => {
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
  return { states, settlements };
};

export const runSigkillCampaign = async (options: CampaignOptions): Promise<CampaignTotals> => {
  const started = Date.now();
  const total: CampaignTotals = { kills: 0, admitted: 0, dispatched: 0, held: 0, indeterminate: 0 };
  for (let round = 0; round < options.kills && Date.now() - started < options.budgetMs; round++) {
    const acks = await runAndKill(options, round % 2 === 0);
    total.kills++;

    const store = options.openStore();
    const views = new BetterSqlite3(join(options.dir, 'views.sqlite'));
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

    const { states, settlements } = await invocationStates(store);
    const recordOf = (actionId: string): ToolActionRecord | undefined => {
      const state = states.get(actionId.slice(0, actionId.lastIndexOf(':tool=')));
      if (state === undefined || state.status !== 'opened') return undefined;
      const position = state.positionByActionId.get(actionId);
      return position === undefined ? undefined : state.toolActions[position];
    };

    for (const id of acks.admitted) expect([id, recordOf(id)?.actionInstanceId]).toEqual([id, id]);
    for (const id of acks.dispatched) expect([id, settlementOf(recordOf(id))]).toEqual([id, expect.stringMatching(/^(completed|indeterminate)$/)]);
    for (const id of acks.completed) expect([id, settlementOf(recordOf(id))]).toEqual([id, 'completed']);
    // A held call was dispatched and never completed: only recovery can have settled it.
    for (const id of acks.held) expect([id, settlementOf(recordOf(id))]).toEqual([id, 'indeterminate']);
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
    total.held += acks.held.size;

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
  return total;
};
