import { buildAdmissionContext } from '../../domain/manifest';
import { invocationDecider, type InvocationCommand, type InvocationState } from '../../domain/invocation';
import { PORTAL_CLIENT } from '../../examples/harness/scripted-harness';
import type { FigureResult } from '../support/figure';
import { summarize } from '../support/stats';
import { benchManifest, benchScenario, participantOf, POLICY } from '../support/world';

/**
 * Admission decision in memory: `decide(AdmitToolAction)` against an active invocation, which decodes
 * the request and checks rules 1 to 10 (rule 11 is the durable write, measured by the next figures).
 * The state is never advanced, so every decision is the same first admission. Timed in batches (one
 * decision is below the clock's resolution); p50 / p99 are over the batches' per-decision means.
 */

const TARGET_US = 3;
const INVOCATION = `${POLICY}:${participantOf(0)}:1`;
const IMPLEMENTATION = 'participant-agent-runner';
const POINT = 'time.clock.shared@segment=0,tick=1';

export const activeInvocation = (): InvocationState => {
  const compiled = benchScenario({ agents: 1 });
  const context = buildAdmissionContext(compiled, benchManifest(), POLICY, participantOf(0));
  const commands: InvocationCommand[] = [
    {
      type: 'OpenInvocation',
      at: '2026-04-11T10:00:00.000Z',
      portValues: {
        invocation_action_instance_id: INVOCATION,
        participant_address: participantOf(0),
        episode_id: 'episode-bench',
        participant_implementation_ref: IMPLEMENTATION,
        execution_scope_ref: POLICY,
        execution_generation: 0,
        observation_point: POINT,
      },
      outerAction: {
        action_contract_address: PORTAL_CLIENT.action_contract_address,
        observation_boundary_address: PORTAL_CLIENT.observation_boundary_address,
        target_addresses: PORTAL_CLIENT.target_addresses,
        actor_provenance: 'participant-implementation:participant-agent-runner@1.0.0',
      },
      admissionContext: context,
    },
    { type: 'ActivateInvocation', at: '2026-04-11T10:00:01.000Z' },
  ];
  let state = invocationDecider.initialState();
  for (const command of commands) {
    const decision = invocationDecider.decide(command, state);
    if (decision.answer.kind === 'refused') throw new Error(`setting up the invocation was refused: ${decision.answer.refusal.message}`);
    for (const event of decision.events) state = invocationDecider.evolve(state, event);
  }
  return state;
};

/** The request as it arrives on the wire: plain JSON, not yet decoded. */
export const wireRequest = (toolCallId: string): Record<string, unknown> => ({
  tool_call_id: toolCallId,
  invocation_action_instance_id: INVOCATION,
  participant_address: participantOf(0),
  episode_id: 'episode-bench',
  participant_implementation_ref: IMPLEMENTATION,
  tool_affordance_address: PORTAL_CLIENT.tool_affordance_address,
  action_contract_address: PORTAL_CLIENT.action_contract_address,
  observation_boundary_address: PORTAL_CLIENT.observation_boundary_address,
  target_addresses: [...PORTAL_CLIENT.target_addresses],
  execution_scope_ref: POLICY,
  execution_generation: 0,
});

const timeBatches = (batches: number, perBatch: number, run: () => void): number[] => {
  const perOpUs: number[] = [];
  for (let batch = 0; batch < batches; batch++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < perBatch; i++) run();
    perOpUs.push(Number(process.hrtime.bigint() - start) / 1000 / perBatch);
  }
  return perOpUs;
};

export const admissionFigure = (quick: boolean): FigureResult => {
  const state = activeInvocation();
  const command: InvocationCommand = {
    type: 'AdmitToolAction',
    at: '2026-04-11T10:00:02.000Z',
    request: wireRequest('call-1'),
    crossingPolicyInstalled: false,
  };
  const check = invocationDecider.decide(command, state);
  if (check.answer.kind !== 'admitted') throw new Error(`the benchmark request is not admitted: ${JSON.stringify(check)}`);
  const text = JSON.stringify(wireRequest('call-1'));
  let sink = 0;
  const decideOnce = (): void => {
    const decision = invocationDecider.decide(command, state);
    sink += decision.events.length;
  };
  const parseOnce = (): void => {
    sink += (JSON.parse(text) as { execution_generation: number }).execution_generation + 1;
  };
  const batches = quick ? 500 : 3000;
  timeBatches(200, 200, decideOnce); // warm the JIT
  timeBatches(200, 200, parseOnce);
  const baseline = summarize(timeBatches(batches, 200, parseOnce));
  const decision = summarize(timeBatches(batches, 200, decideOnce));
  if (sink === 0) throw new Error('nothing was decided');
  return {
    figure: 'admission',
    title: 'Admission decision in memory (decode + rules 1-10, no I/O)',
    rows: [
      { measure: 'baseline: JSON.parse of the same request', p50: baseline.p50, p99: baseline.p99, unit: 'us', relative: '1.00 x' },
      {
        measure: 'decide(AdmitToolAction) on an active invocation',
        p50: decision.p50,
        p99: decision.p99,
        unit: 'us',
        relative: `${(decision.p50 / baseline.p50).toFixed(2)} x`,
      },
    ],
    target: `p50 <= ${TARGET_US} us`,
    measured: `p50 ${decision.p50.toFixed(2)} us`,
    met: decision.p50 <= TARGET_US,
    notes: [`${batches} batches of 200 decisions; percentiles over the batch means`],
  };
};
