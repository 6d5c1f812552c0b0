import { invocationHistory, type ActionResult, type BehaviorHistoryEvent, type InvocationEvent } from '../../../domain/invocation';
import { activeInvocation, admitted, completed, dispatched, indeterminate, outerResult, request, returned, toolResult, withheld } from './fixtures';

/**
 * RAES's RUN-306 lifecycle rules for behavior history events, which its JSON schema cannot express,
 * written from the rule text of RAES's participant-behavior contract:
 * - lifecycle fields other than lifecycle_phase require lifecycle_phase;
 * - lifecycle_phase requires phase_realization, one of RAES's realization modes;
 * - admission_disposition goes with selection_or_admission only, and that phase requires it;
 * - operation_state and operation_ref go with execution_attempt only;
 * - each event type allows only its phases.
 */
const PHASE_REALIZATIONS = ['observed', 'runtime_mediated', 'externally_supplied', 'opaque', 'unknown', 'not_applicable', 'unsupported'];
const PHASES_BY_EVENT_TYPE: Record<string, readonly string[]> = {
  action_attempted: ['intent_or_proposal', 'selection_or_admission', 'execution_attempt'],
  state_transition_recorded: ['state_update_commit'],
  observation_emitted: ['observation_emission'],
};

const lifecycleViolations = (event: Record<string, unknown>): string[] => {
  const phase = event['lifecycle_phase'] ?? null;
  const realization = event['phase_realization'] ?? null;
  const admission = event['admission_disposition'] ?? null;
  const operationRef = event['operation_ref'] ?? null;
  const operationState = event['operation_state'] ?? null;
  const found: string[] = [];
  if (phase === null) {
    if ([realization, admission, operationRef, operationState].some((v) => v !== null)) found.push('lifecycle fields require lifecycle_phase');
    return found;
  }
  if (realization === null) found.push('lifecycle_phase requires phase_realization');
  else if (!PHASE_REALIZATIONS.includes(String(realization))) found.push(`phase_realization ${String(realization)} is not supported`);
  if (phase === 'selection_or_admission' && admission === null) found.push('selection_or_admission requires admission_disposition');
  if (phase !== 'selection_or_admission' && admission !== null) found.push('admission_disposition requires selection_or_admission');
  if (phase !== 'execution_attempt' && operationState !== null) found.push('operation_state requires execution_attempt');
  if (phase !== 'execution_attempt' && operationRef !== null) found.push('operation_ref requires execution_attempt');
  const allowed = PHASES_BY_EVENT_TYPE[String(event['event_type'])];
  if (allowed !== undefined && !allowed.includes(String(phase))) found.push(`${String(event['event_type'])} does not allow lifecycle_phase ${String(phase)}`);
  return found;
};

const history = invocationHistory([
  ...activeInvocation(),
  admitted(1, request('call-1')),
  admitted(2, request('call-2')),
  dispatched(2),
  indeterminate(2, 'timeout'),
  admitted(3, request('call-3')),
  dispatched(3),
  completed(3),
  withheld(1, 'cancelled'),
  returned,
]);

const asRecord = (event: BehaviorHistoryEvent): Record<string, unknown> => event as unknown as Record<string, unknown>;

describe('behavior history under RAES RUN-306 lifecycle rules', () => {
  it('renders the tool-action triples and the outer triple', () => {
    expect(history).toHaveLength(12);
  });

  it('breaks none of the rules on any event', () => {
    expect(history.map((event) => lifecycleViolations(asRecord(event)))).toEqual(history.map(() => []));
  });

  it('marks tool-action events runtime-mediated and the outer result as supplied by the participant', () => {
    const tool = history.filter((e) => e.invocation_tool_context !== undefined);
    const outer = history.filter((e) => e.invocation_tool_context === undefined);
    expect(new Set(tool.map((e) => e.phase_realization))).toEqual(new Set(['runtime_mediated']));
    expect(outer.map((e) => [e.lifecycle_phase, e.phase_realization])).toEqual([
      ['execution_attempt', 'runtime_mediated'],
      ['state_update_commit', 'runtime_mediated'],
      ['observation_emission', 'externally_supplied'],
    ]);
  });

  it('the check refuses an event that carries lifecycle_phase without phase_realization, as RAES does', () => {
    const [first] = history;
    const stripped: Record<string, unknown> = { ...asRecord(first as BehaviorHistoryEvent) };
    delete stripped['phase_realization'];
    expect(lifecycleViolations(stripped)).toEqual(['lifecycle_phase requires phase_realization']);
  });
});

const outerObservation = (events: readonly BehaviorHistoryEvent[]): ActionResult => {
  const observed = events.filter((e) => e.invocation_tool_context === undefined && e.event_type === 'observation_emitted');
  expect(observed).toHaveLength(1);
  return observed[0]?.action_result as ActionResult;
};

/** The precondition result the engine states itself, scoped to the result it is part of. */
const engineVerified = (preconditionId: string, result: ActionResult) => ({
  precondition_id: preconditionId,
  precondition_class: 'realization',
  status: 'satisfied',
  participant_address: result.participant_address,
  episode_id: result.episode_id,
  action_contract_address: result.action_contract_address,
  observation_point: result.observation_point,
});

describe('precondition results on the outer action result, which RAES requires of participant action results', () => {
  it('states the engine-verified precondition, scoped to the result, when the participant stated none', () => {
    const result = outerObservation(history);
    expect(result.preconditions).toEqual([engineVerified('invocation-active', result)]);
  });

  it('keeps the precondition results the participant returned', () => {
    const base = outerResult();
    const stated = [
      {
        precondition_id: 'portal-reachable',
        precondition_class: 'target' as const,
        status: 'satisfied' as const,
        participant_address: base.participant_address,
        episode_id: base.episode_id,
        action_contract_address: base.action_contract_address,
        observation_point: base.observation_point,
      },
    ];
    const closed: InvocationEvent = { ...returned, action_result: { ...base, preconditions: stated } } as InvocationEvent;
    expect(outerObservation(invocationHistory([...activeInvocation(), closed])).preconditions).toEqual(stated);
  });
});

/**
 * RAES's rules for a participant action result that a history records (its processor's
 * ParticipantActionResult), written from their text, but for the observation point's anchoring to the
 * action instance id, which no profile-v1 id can meet (docs/decisions.md): every result carries at least
 * one precondition result, each scoped to the result; a withheld, failed, rejected, partial_success or
 * unknown result names a failure class.
 */
const FAILURE_STATUSES = ['rejected', 'withheld', 'failed', 'partial_success', 'unknown'];

const resultViolations = (result: ActionResult): string[] => {
  const found: string[] = [];
  const preconditions = result.preconditions ?? [];
  if (preconditions.length === 0) found.push('participant action results require precondition results');
  for (const p of preconditions) {
    const scoped =
      p.participant_address === result.participant_address &&
      p.episode_id === result.episode_id &&
      p.action_contract_address === result.action_contract_address &&
      p.observation_point === result.observation_point;
    if (!scoped) found.push(`precondition ${p.precondition_id} is not scoped to the result`);
  }
  if (FAILURE_STATUSES.includes(result.status) && (result.failure_class === undefined || result.failure_class === null)) {
    found.push(`${result.status} action results require a portable failure_class`);
  }
  return found;
};

const toolResultOf = (events: readonly BehaviorHistoryEvent[], ordinal: number): ActionResult => {
  const observed = events.filter((e) => e.invocation_tool_context?.admission_ordinal === ordinal && e.event_type === 'observation_emitted');
  expect(observed).toHaveLength(1);
  return observed[0]?.action_result as ActionResult;
};

describe('the tool-action results a history records, under RAES rules for participant action results', () => {
  it('breaks none of the rules, whether the engine wrote the result (withheld, unknown) or the harness did', () => {
    const results = [1, 2, 3].map((ordinal) => toolResultOf(history, ordinal));
    expect(results.map((result) => result.status)).toEqual(['withheld', 'unknown', 'succeeded']);
    expect(results.map(resultViolations)).toEqual([[], [], []]);
  });

  it('gives a withheld action the failure class interrupted: admitted, it was stopped before it ran', () => {
    for (const reason of ['cancelled', 'invocation_closed', 'recovered'] as const) {
      const events = invocationHistory([...activeInvocation(), admitted(1, request('call-1')), withheld(1, reason), returned]);
      expect(toolResultOf(events, 1)).toMatchObject({ status: 'withheld', failure_class: 'interrupted' });
    }
  });

  it('states the engine-verified admission, scoped to the result, when the result states no precondition', () => {
    const result = toolResultOf(history, 3);
    expect(result.preconditions).toEqual([engineVerified('tool-action-admitted', result)]);
  });

  it('keeps the precondition results a completed outcome stated', () => {
    const base = toolResultOf(history, 3);
    const stated = [{ ...(base.preconditions?.[0] as NonNullable<ActionResult['preconditions']>[number]), precondition_id: 'portal-present', precondition_class: 'target' as const }];
    const settled: InvocationEvent = { ...completed(1), action_result: { ...toolResult(1), preconditions: stated } } as InvocationEvent;
    const events = invocationHistory([...activeInvocation(), admitted(1, request('call-1')), dispatched(1), settled, returned]);
    expect(toolResultOf(events, 1).preconditions).toEqual(stated);
  });
});
