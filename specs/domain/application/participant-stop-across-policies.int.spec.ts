import { parse, stringify } from 'yaml';
import { MemoryEventStore } from '../../../adapters/event-store';
import { HarnessRuntime, RuntimeManager } from '../../../domain/application';
import { loadScenario } from '../../../domain/scenario';
import { callTool, ToolTimeout } from '../../../examples/harness/call-tool';
import { PORTAL_CLIENT, probeResult } from '../../../examples/harness/scripted-harness';
import { manifest, PARTICIPANT, POLICY, scenarioText, steppingClock } from './support/world';

/**
 * SPEC.md section 5: an indeterminate tool action "stops the participant's scheduler: no further
 * invocation runs for that participant until an operator resolves the action". A participant of two
 * policies has a scheduler under each; no attempt starts under either while one of them holds an
 * unresolved indeterminate action, and restartScheduler lifts the stop of every policy once the
 * operator has resolved it.
 */

const SECOND_POLICY = 'participant.autonomous-execution.second-behavior';

/** The example with a second behavior specification (no tool affordances) whose policy runs the same participant. */
const twoPolicies = () => {
  const document = parse(scenarioText()) as Record<string, any>;
  const first = document.behavior_specifications['participant-behavior'];
  document.temporal_constraints['second-cadence'] = {
    ...document.temporal_constraints['probe-cadence'],
    subject_refs: ['behavior_specifications.second-behavior'],
  };
  document.behavior_specifications['second-behavior'] = {
    semantic_version: first.semantic_version,
    participant_refs: first.participant_refs,
    action_contract_refs: first.action_contract_refs,
    observation_boundary_refs: first.observation_boundary_refs,
    backend_feature_support_refs: first.backend_feature_support_refs,
    autonomous_execution: { ...first.autonomous_execution, temporal_constraint_refs: ['second-cadence'], failure_policy: 'continue' },
  };
  const loaded = loadScenario(stringify(document));
  if (!loaded.ok) throw new Error(loaded.diagnostics.map((d) => d.message).join('\n'));
  return loaded.compiled;
};

describe('an indeterminate tool action', () => {
  it("stops every invocation of its participant, under every policy, until an operator resolves it", async () => {
    const secondPolicyTicks: number[] = [];
    const manager = new RuntimeManager({
      compiled: twoPolicies(),
      manifest: manifest(),
      runtime: new HarnessRuntime(async (request, snapshot, port) => {
        if (request.execution_scope_ref === SECOND_POLICY) {
          secondPolicyTicks.push(snapshot.tick);
          return probeResult(request, []);
        }
        const outcome = await callTool(port!, 'call-1', PORTAL_CLIENT, async () => {
          throw new ToolTimeout('portal-client');
        });
        return probeResult(request, [outcome]);
      }),
      store: new MemoryEventStore(),
      episodeId: 'episode-1',
      clock: steppingClock(),
    });
    await manager.start();
    await manager.advance(1);
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)?.status).toBe('stopped');
    await manager.advance(4);
    expect(secondPolicyTicks).toEqual([0]);

    expect(await manager.restartScheduler(PARTICIPANT)).toMatchObject({ ok: false, code: 'indeterminate_unresolved' });
    expect(await manager.resolve(`${POLICY}:${PARTICIPANT}:1:tool=1`, 'absent', 'content.participant-observation')).toEqual({ ok: true });
    expect(await manager.restartScheduler(PARTICIPANT)).toEqual({ ok: true });
    expect(manager.schedulerStatus(POLICY, PARTICIPANT)?.status).toBe('running');
    await manager.advance(2);
    expect(secondPolicyTicks).toEqual([0, 6]);
  });
});
