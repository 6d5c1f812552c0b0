import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAdmissionContext } from '../../domain/manifest';
import { HarnessRuntime, invocationAggregate, LocalInvocationPort, RuntimeManager } from '../../domain/application';
import type { InvocationAggregate } from '../../domain/application/aggregates';
import { PORTAL_CLIENT } from '../../examples/harness/scripted-harness';
import type { FigureResult } from '../support/figure';
import { progress } from '../support/progress';
import { admitAndDispatch, completeCall, outerResult } from './port-world';
import { benchManifest, benchScenario, openBenchChainedStore, openBenchStore, participantOf, POLICY, steppingClock } from '../support/world';

/** The engine's participant-crossing switch, off. */
const NO_CROSSING_POLICY = { installed: false } as const;

/**
 * Heap per open invocation: what the engine holds while an invocation runs (its aggregate with the
 * folded state, opened and activated, and its port), measured as the growth of the V8 heap after a full
 * GC, divided by the number of invocations held. The admission context is built once per
 * policy-participant and shared, as the runtime manager does.
 */

const TARGET_BYTES = 1024;

const heapAfterGc = (): number => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the heap figure needs global.gc: run through `node --expose-gc --import tsx`');
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
};

/**
 * Checks the command results in a frame of its own: an array awaited in the figure's own frame would
 * stay reachable from it while the heap is measured, and count the results as held.
 */
const allAccepted = async (results: readonly Promise<{ readonly kind: string; readonly answer: { readonly kind: string } }>[]): Promise<void> => {
  for (const outcome of await Promise.all(results)) {
    if (outcome.kind !== 'decided' || outcome.answer.kind === 'refused') throw new Error(`opening an invocation failed: ${outcome.kind} ${outcome.answer.kind}`);
  }
};

/** Participants of the manager figure, each with this many invocations in flight. */
const MANAGER_PARTICIPANTS = 64;

/**
 * Through the real runtime manager: 64 participants, each scheduler running up to `perParticipant`
 * invocations at once; every invocation has one tool action admitted and dispatched (in flight) and its
 * harness waits there. Counted: the heap grown from the started manager to all of them in flight, over
 * the number of open invocations: the aggregate, its fold, the port, the scheduler's and lanes' entries,
 * and the waiting harness's own frame (the smallest a harness can have).
 */
const managerHeapPerInvocation = async (perParticipant: number): Promise<{ bytes: number; open: number }> => {
  const dir = mkdtempSync(join(tmpdir(), 'raes-bench-heap-manager-'));
  // As run opens it: the chain keeps a head per stream appended to.
  const store = openBenchChainedStore(join(dir, 'events.sqlite'));
  const open = MANAGER_PARTICIPANTS * perParticipant;
  let inFlight = 0;
  let allInFlight: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (allInFlight = resolve));
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const manager = new RuntimeManager({
    compiled: benchScenario({ agents: MANAGER_PARTICIPANTS, maxInFlight: perParticipant }),
    manifest: benchManifest(),
    runtime: new HarnessRuntime(async (request, _snapshot, port) => {
      if (port === undefined) throw new Error('no port was attached');
      const id = await admitAndDispatch(port, 'call-1');
      if (++inFlight === open) allInFlight();
      await released;
      await completeCall(port, id);
      return outerResult(request);
    }),
    store,
    episodeId: 'episode-bench',
    clock: steppingClock(),
  });
  try {
    await manager.start();
    const before = heapAfterGc();
    progress(`heap: ${open.toLocaleString('en-US')} invocations in flight through the runtime manager (${MANAGER_PARTICIPANTS} participants)`);
    await manager.advance(perParticipant, 'started');
    await reached;
    const bytes = (heapAfterGc() - before) / open;
    release();
    await manager.idle();
    return { bytes, open };
  } finally {
    release();
    await manager.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export const heapFigure = async (quick: boolean): Promise<FigureResult> => {
  const manager = await managerHeapPerInvocation(quick ? 32 : 128);
  const count = quick ? 2_000 : 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'raes-bench-heap-'));
  const store = openBenchStore(join(dir, 'events.sqlite'));
  try {
    const compiled = benchScenario({ agents: 1 });
    const context = buildAdmissionContext(compiled, benchManifest(), POLICY, participantOf(0));
    const clock = steppingClock();

    const baselineBefore = heapAfterGc();
    const ids = new Map<string, string>();
    for (let i = 0; i < count; i++) ids.set(`${POLICY}:${participantOf(0)}:${i + 1}`, `invocation-${i + 1}`);
    const baselineBytes = (heapAfterGc() - baselineBefore) / count;

    progress(`heap: opening ${count.toLocaleString('en-US')} invocations`);
    // The manager keeps aggregates by id and the harness keeps its port: two references, no holder object.
    const aggregates: InvocationAggregate[] = [];
    const ports: LocalInvocationPort[] = [];
    // As the manager does: one outer action per policy-participant and contract, shared by its invocations.
    const outerAction = {
      action_contract_address: PORTAL_CLIENT.action_contract_address,
      observation_boundary_address: PORTAL_CLIENT.observation_boundary_address,
      target_addresses: PORTAL_CLIENT.target_addresses,
      actor_provenance: 'participant-implementation:participant-agent-runner@1.0.0',
    };
    // The participant's address is the policy's string, as in the scheduler's requests, not a copy each.
    const participant = participantOf(0);
    const before = heapAfterGc();
    const opened: Promise<{ readonly kind: string; readonly answer: { readonly kind: string } }>[] = [];
    for (let i = 0; i < count; i++) {
      const invocationId = `${POLICY}:${participant}:${i + 1}`;
      const aggregate = invocationAggregate(store, 'episode-bench', invocationId);
      const portValues = {
        invocation_action_instance_id: invocationId,
        participant_address: participant,
        episode_id: 'episode-bench',
        participant_implementation_ref: 'participant-agent-runner',
        execution_scope_ref: POLICY,
        execution_generation: 0,
        observation_point: `time.clock.shared@segment=0,tick=${i + 1}`,
      };
      opened.push(
        aggregate.handle({
          type: 'OpenInvocation',
          at: clock().toISOString(),
          portValues,
          outerAction,
          admissionContext: context,
        }),
      );
      opened.push(aggregate.handle({ type: 'ActivateInvocation', at: clock().toISOString() }));
      aggregates.push(aggregate);
      ports.push(new LocalInvocationPort(portValues, aggregate, clock, undefined, NO_CROSSING_POLICY));
    }
    await allAccepted(opened);
    opened.length = 0; // the command results are the caller's, not what the engine holds
    const perInvocation = (heapAfterGc() - before) / count;
    if (aggregates.length !== count || ports.length !== count || ids.size !== count) throw new Error('the held invocations were lost');
    return {
      figure: 'heap',
      title: 'Heap per open invocation, after GC: through the runtime manager, one tool action in flight each',
      rows: [
        { measure: 'baseline: a Map entry of the invocation id', p50: baselineBytes, p99: null, unit: 'B', relative: '1.00 x' },
        {
          measure: `through the manager: ${MANAGER_PARTICIPANTS} participants, ${manager.open.toLocaleString('en-US')} in flight, one tool action dispatched each`,
          p50: manager.bytes,
          p99: null,
          unit: 'B',
          relative: `${(manager.bytes / baselineBytes).toFixed(1)} x`,
        },
        { measure: 'aggregate + fold + port alone, opened and activated, no tool action', p50: perInvocation, p99: null, unit: 'B', relative: `${(perInvocation / baselineBytes).toFixed(1)} x` },
      ],
      target: `<= ${TARGET_BYTES} B through the manager`,
      measured: `${Math.round(manager.bytes)} B over ${manager.open.toLocaleString('en-US')} invocations`,
      met: manager.bytes <= TARGET_BYTES,
      notes: [
        'through the manager counts everything the engine holds for an invocation in flight (aggregate, fold with its tool action, port, scheduler and lane entries) ' +
          'and the waiting frame of the smallest harness; a real harness holds its own state beside it',
        ...(manager.bytes <= TARGET_BYTES ? [] : ['see docs/performance.md']),
      ],
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
