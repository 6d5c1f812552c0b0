import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { HarnessRuntime, RuntimeManager, type RuntimeProgress } from '../../../domain/application';
import type { SqliteEventStore } from '../../../adapters/event-store';
import { invocationEventCodec } from '../../../domain/application/aggregates';
import { invocationHistory, type InvocationEvent } from '../../../domain/invocation';
import { invocationStream } from '../../../domain/streams';
import { scriptedHarness } from '../../../examples/harness/scripted-harness';
import { makeTempDir, type TempDir } from '../../adapters/event-store/support/temp-dir';
import { compiledScenario, manifest, openSqlite, PARTICIPANT, POLICY, steppingClock } from './support/world';
import { openInvocationsIndex } from '../../../adapters/views/open-invocations-index';

/**
 * The seed's harness (call_tool: admit, dispatch, timeout -> reportUnknown, complete) run end to end by
 * the runtime manager on the SQLite store, and the history of SPEC.md section 6 it yields.
 */
const INVOCATION = `${POLICY}:${PARTICIPANT}:1`;
const TOOL_1 = `${INVOCATION}:tool=1`;
const TOOL_2 = `${INVOCATION}:tool=2`;
const AFFORDANCE = 'participant.behavior-specification.participant-behavior.tool-affordance.portal-client';
const PROBE = 'participant.action-contract.probe-customer-portal-login';
const VIEW = 'participant.observation-boundary.participant-view';

describe('the seed harness on the SQLite store', () => {
  let dir: TempDir;
  let store: SqliteEventStore;
  let views: BetterSqlite3.Database;
  let manager: RuntimeManager;
  const progress: RuntimeProgress[] = [];

  beforeAll(async () => {
    dir = makeTempDir('seed-harness');
    store = openSqlite(join(dir.path, 'events.sqlite'));
    views = new BetterSqlite3(':memory:');
    manager = new RuntimeManager({
      compiled: compiledScenario(),
      manifest: manifest(),
      runtime: new HarnessRuntime(scriptedHarness({ script: ['succeeds', 'times_out'] })),
      store,
      openInvocations: openInvocationsIndex(store, views),
      episodeId: 'episode-1',
      clock: steppingClock(),
      onProgress: (p) => progress.push(p),
    });
    await manager.start();
    await manager.advance(1);
  });

  afterAll(async () => {
    await manager.close();
    await store.close();
    views.close();
    dir.remove();
  });

  const streamEvents = async (): Promise<InvocationEvent[]> => {
    const read = await store.readStream(invocationStream('episode-1', INVOCATION));
    if (read.kind !== 'read') throw new Error(read.reason);
    return read.events.map((recorded) => {
      const event = invocationEventCodec.fromRecorded(recorded);
      if (typeof event === 'string') throw new Error(event);
      return event;
    });
  };

  it('records each port call as one event of the invocation stream, in call order', async () => {
    const events = await streamEvents();
    expect(events.map((e) => (e.type === 'ToolActionSettled' ? `${e.type}:${e.settlement}` : e.type))).toEqual([
      'InvocationOpened',
      'InvocationActivated',
      'ToolActionAdmitted',
      'ToolActionDispatched',
      'ToolActionSettled:completed',
      'ToolActionAdmitted',
      'ToolActionDispatched',
      'ToolActionSettled:indeterminate',
      'InvocationClosed',
    ]);
  });

  it('yields one triple per tool action in admission order, then the outer triple', async () => {
    const history = invocationHistory(await streamEvents());
    const rows = history.map((e) => [
      e.event_type,
      e.action_instance_id,
      e.action_contract_address,
      e.invocation_tool_context?.admission_ordinal ?? null,
      e.invocation_tool_context?.settlement ?? null,
      e.observation_status,
      e.action_result?.status ?? null,
    ]);
    expect(rows).toEqual([
      ['action_attempted', TOOL_1, PROBE, 1, 'completed', null, null],
      ['state_transition_recorded', TOOL_1, PROBE, 1, 'completed', null, null],
      ['observation_emitted', TOOL_1, PROBE, 1, 'completed', 'terminal', 'succeeded'],
      ['action_attempted', TOOL_2, PROBE, 2, 'indeterminate', null, null],
      ['state_transition_recorded', TOOL_2, PROBE, 2, 'indeterminate', null, null],
      ['observation_emitted', TOOL_2, PROBE, 2, 'indeterminate', 'orphaned_action', 'unknown'],
      ['action_attempted', INVOCATION, PROBE, null, null, null, null],
      ['state_transition_recorded', INVOCATION, PROBE, null, null, null, null],
      ['observation_emitted', INVOCATION, PROBE, null, null, 'terminal', 'succeeded'],
    ]);
  });

  it('carries the invocation tool context on every tool-action event and the provenance on each first event', async () => {
    const history = invocationHistory(await streamEvents());
    expect(history[0]?.invocation_tool_context).toEqual({
      invocation_action_instance_id: INVOCATION,
      invocation_action_contract_address: PROBE,
      tool_affordance_address: AFFORDANCE,
      tool_call_id: `${INVOCATION}#call-1`,
      admission_ordinal: 1,
      settlement: 'completed',
      execution_scope_ref: POLICY,
      execution_generation: 0,
    });
    expect(history[3]?.invocation_tool_context?.tool_call_id).toBe(`${INVOCATION}#call-2`);
    expect(history.filter((e) => e.event_type === 'action_attempted').map((e) => e.actor_provenance)).toEqual([
      'participant-implementation:participant-agent-runner@1.0.0',
      'participant-implementation:participant-agent-runner@1.0.0',
      'participant-implementation:participant-agent-runner@1.0.0',
    ]);
    expect(history[5]?.observation_boundary_address).toBe(VIEW);
    expect(history[6]?.invocation_tool_context).toBeUndefined();
    expect(history.map((e) => e.episode_id)).toEqual(Array(9).fill('episode-1'));
    expect(new Set(history.map((e) => e.participant_address))).toEqual(new Set([PARTICIPANT]));
  });

  it('stops the participant scheduler on the indeterminate action; no invocation runs until resolve and restart', async () => {
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)?.status).toBe('stopped');
    await manager.advance(4);
    const second = await store.readStream(invocationStream('episode-1', `${POLICY}:${PARTICIPANT}:2`));
    expect(second.kind === 'read' && second.events.length).toBe(0);

    expect(await manager.restartScheduler(PARTICIPANT)).toMatchObject({ ok: false, code: 'indeterminate_unresolved' });
    expect(await manager.resolve(TOOL_2, 'absent', 'content.participant-observation')).toEqual({ ok: true });
    expect(await manager.resolve(TOOL_2, 'absent', 'content.participant-observation')).toMatchObject({ ok: false, code: 'state_conflict' });
    expect(await manager.restartScheduler(PARTICIPANT)).toEqual({ ok: true });
    await manager.advance(2);
    const resumed = await store.readStream(invocationStream('episode-1', `${POLICY}:${PARTICIPANT}:2`));
    expect(resumed.kind === 'read' && resumed.events[0]?.type).toBe('InvocationOpened');
  });

  it('reports progress without tool arguments or results', () => {
    const kinds = progress.map((p) => p.kind);
    expect(kinds.slice(0, 6)).toEqual([
      'invocation_opened',
      'tool_action_admitted',
      'tool_action_settled',
      'tool_action_admitted',
      'tool_action_settled',
      'invocation_closed',
    ]);
    expect(progress).toContainEqual({ kind: 'scheduler_stopped', participant_address: PARTICIPANT, reason: 'indeterminate_tool_action' });
  });
});
