import {
  invocationHistory,
  schedulerMustStop,
  toolAction,
  type ActionPreconditionResult,
  type ActionResult,
  type InvocationCommand,
  type InvocationEvent,
} from '../../../domain/invocation';
import {
  AT,
  CREDENTIALS,
  INVOCATION_ID,
  PORTAL_NODE,
  activate,
  activeInvocation,
  admit,
  admitted,
  cancel,
  closeInvalid,
  closeReturned,
  closeThrew,
  complete,
  completed,
  dispatch,
  dispatched,
  indeterminate,
  open,
  opened,
  outerResult,
  recover,
  reportUnknown,
  request,
  resolve,
  returned,
  spec,
  threw,
  toolId,
  toolResult,
  withheld,
} from './fixtures';

/** A precondition result of tool action 1's outcome, scoped to it unless `over` says otherwise. */
const toolPrecondition = (over: Partial<ActionPreconditionResult> = {}): ActionPreconditionResult => ({
  precondition_id: 'portal-present',
  precondition_class: 'target',
  status: 'satisfied',
  participant_address: toolResult(1).participant_address,
  episode_id: toolResult(1).episode_id,
  action_contract_address: toolResult(1).action_contract_address,
  observation_point: toolResult(1).observation_point,
  ...over,
});

const withPrecondition = (result: ActionResult, over: Partial<ActionPreconditionResult>): ActionResult => ({ ...result, preconditions: [toolPrecondition(over)] });

/** SPEC.md section 5, "Failure behaviour": one spec per row of the table. */
describe('failure behaviour (SPEC.md section 5)', () => {
  it('same tool_call_id, same request: the original decision, no new events', () => {
    const given = [...activeInvocation(), admitted(1, request('call-1'))];
    const replay = spec.given(given).when(admit(request('call-1')));
    replay.thenNothingHappens();
    expect(replay.answer()).toEqual({ kind: 'replayed', original: toolAction(spec.given(given).state(), toolId(1)) });
  });

  it('same tool_call_id, different request: request_conflict, the original record stays', () => {
    const given = [...activeInvocation(), admitted(1, request('call-1'))];
    spec.given(given).when(admit({ ...request('call-1'), target_addresses: [PORTAL_NODE] })).thenRefuses('request_conflict');
    expect(toolAction(spec.given(given).state(), toolId(1))?.request).toEqual(request('call-1'));
  });

  it('cancel before dispatch: settles withheld', () => {
    spec.given([...activeInvocation(), admitted(1)]).when(cancel(1)).then([withheld(1, 'cancelled')]);
  });

  it('cancel after dispatch: state_conflict (complete it or report unknown)', () => {
    const refusal = spec.given([...activeInvocation(), admitted(1), dispatched(1)]).when(cancel(1)).thenRefuses('state_conflict');
    expect(refusal.message).toContain('complete it or report unknown');
  });

  it('reportUnknown after dispatch: settles indeterminate and stops the scheduler', () => {
    const outcome = spec.given([...activeInvocation(), admitted(1), dispatched(1)]).when(reportUnknown(1, 'timeout'));
    outcome.then([indeterminate(1, 'timeout')]);
    expect(schedulerMustStop(outcome.stateAfter())).toBe(true);
  });

  describe('an invalid outcome: outcome_invalid, the action stays dispatched', () => {
    const given = [...activeInvocation(), admitted(1), dispatched(1)];
    const cases: readonly (readonly [string, unknown])[] = [
      ['withheld evidence', { ...toolResult(1), evidence_refs: [CREDENTIALS] }],
      ['undeclared evidence', { ...toolResult(1), evidence_refs: ['evidence.somewhere-else'] }],
      [
        'undeclared evidence on an effect',
        {
          ...toolResult(1),
          effects: [{ effect_id: 'e1', effect_class: 'intended_effect', description: 'logged in', evidence_refs: ['evidence.x'] }],
        },
      ],
      ['a foreign observation point', { ...toolResult(1), observation_point: 'time.clock.shared@segment=0,tick=9' }],
      ['a mismatched action instance id', { ...toolResult(1), action_instance_id: toolId(2) }],
      ['a mismatched participant', { ...toolResult(1), participant_address: 'participant.behavior.other' }],
      ['a mismatched episode', { ...toolResult(1), episode_id: 'episode-other' }],
      ['a mismatched action contract', { ...toolResult(1), action_contract_address: 'participant.action-contract.other' }],
      ['a non-terminal status', toolResult(1, 'accepted')],
      ['an unknown status', toolResult(1, 'unknown')],
      ['not an action result', { status: 'succeeded' }],
      ['a precondition of another participant', withPrecondition(toolResult(1), { participant_address: 'participant.behavior.other' })],
      ['a precondition of another episode', withPrecondition(toolResult(1), { episode_id: 'episode-other' })],
      ['a precondition of another action contract', withPrecondition(toolResult(1), { action_contract_address: 'participant.action-contract.other' })],
      ['a precondition at a foreign observation point', withPrecondition(toolResult(1), { observation_point: 'time.clock.shared@segment=0,tick=9' })],
      ['a precondition reported twice', { ...toolResult(1), preconditions: [toolPrecondition(), toolPrecondition()] }],
      ['an unsatisfied precondition under a succeeded result', withPrecondition(toolResult(1), { status: 'unsatisfied' })],
      ['an unresolved precondition under a partial_success result', withPrecondition({ ...toolResult(1, 'partial_success'), failure_class: 'partial_success' }, { status: 'unresolved' })],
      ['an unsatisfied precondition under a result with no failure class', withPrecondition(toolResult(1, 'failed'), { status: 'unsatisfied' })],
    ];
    it.each(cases)('%s', (_name, result) => {
      const outcome = spec.given(given).when(complete(1, result));
      outcome.thenRefuses('outcome_invalid');
      expect(toolAction(spec.given(given).state(), toolId(1))?.phase).toBe('dispatched');
      spec.given(given).when(reportUnknown(1)).then([indeterminate(1, 'timeout')]);
    });

    it('accepts evidence the boundary or the covering offer declares', () => {
      spec.given(given).when(complete(1)).then([completed(1)]);
    });

    it('accepts precondition results scoped to the result, an unsatisfied one under a failed result with its failure class', () => {
      for (const result of [
        withPrecondition(toolResult(1), {}),
        withPrecondition({ ...toolResult(1, 'failed'), failure_class: 'precondition_unsatisfied' }, { status: 'unsatisfied' }),
      ]) {
        spec.given(given).when(complete(1, result)).then([{ ...completed(1), action_result: result } as InvocationEvent]);
      }
    });
  });

  it('the invocation returns with undispatched actions: they settle withheld', () => {
    spec
      .given([...activeInvocation(), admitted(1), admitted(2), dispatched(2), completed(2)])
      .when(closeReturned())
      .then([withheld(1, 'invocation_closed'), returned]);
  });

  it('the invocation returns with dispatched actions and no outcome: they settle indeterminate', () => {
    spec
      .given([...activeInvocation(), admitted(1), dispatched(1)])
      .when(closeReturned())
      .then([indeterminate(1, 'dispatched without outcome when the invocation returned'), returned]);
  });

  describe('any call after the invocation returns: invocation_closed', () => {
    const given = [...activeInvocation(), admitted(1), dispatched(1), completed(1), admitted(2), threw];
    const calls: readonly (readonly [string, InvocationCommand])[] = [
      ['admit', admit(request('call-9'))],
      ['admit replay', admit(request('call-1'))],
      ['dispatch', dispatch(2)],
      ['complete', complete(1)],
      ['reportUnknown', reportUnknown(1)],
      ['cancel', cancel(2)],
      ['close', closeReturned()],
      ['recover', recover],
      ['activate', activate],
    ];
    it.each(calls)('%s', (_name, command) => {
      spec.given(given).when(command).thenRefuses('invocation_closed');
    });
  });

  /** A precondition result scoped to the fixtures' outer result. */
  const precondition = (status: 'satisfied' | 'unsatisfied') => ({
    precondition_id: 'portal-reachable',
    precondition_class: 'target',
    status,
    participant_address: outerResult().participant_address,
    episode_id: outerResult().episode_id,
    action_contract_address: outerResult().action_contract_address,
    observation_point: outerResult().observation_point,
  });

  it('keeps a returned result whose precondition results are scoped to it', () => {
    const given = [...activeInvocation()];
    const when = spec.given(given).when(closeReturned({ ...outerResult(), preconditions: [precondition('satisfied')] }));
    expect(when.events().map((event) => (event.type === 'InvocationClosed' ? event.outcome : event.type))).toEqual(['returned']);
  });

  describe('the invocation throws or returns an invalid result: tool history commits, no outer triple', () => {
    const given = [...activeInvocation(), admitted(1), dispatched(1), completed(1)];
    it.each([
      ['throws', closeThrew, 'threw'],
      ['returns an invalid result', closeInvalid, 'invalid_result'],
      ['returns a result for another action', closeReturned({ ...outerResult(), action_instance_id: 'other' }), 'invalid_result'],
      ['returns something that is no result', closeReturned({ status: 'succeeded' }), 'invalid_result'],
      [
        'returns a precondition result scoped to another episode',
        closeReturned({ ...outerResult(), preconditions: [{ ...precondition('satisfied'), episode_id: 'another-episode' }] }),
        'invalid_result',
      ],
      [
        'returns a failure over an unsatisfied precondition without a failure class',
        closeReturned({ ...outerResult(), status: 'failed', failure_class: null, preconditions: [precondition('unsatisfied')] }),
        'invalid_result',
      ],
      [
        'returns a success over an unsatisfied precondition',
        closeReturned({ ...outerResult(), status: 'succeeded', failure_class: null, preconditions: [precondition('unsatisfied')] }),
        'invalid_result',
      ],
      [
        'returns the same precondition twice',
        closeReturned({ ...outerResult(), preconditions: [precondition('satisfied'), precondition('satisfied')] }),
        'invalid_result',
      ],
    ] as const)('%s', (_name, command, outcome) => {
      const when = spec.given(given).when(command);
      expect(when.events().map((event) => (event.type === 'InvocationClosed' ? event.outcome : event.type))).toEqual([outcome]);
      const history = invocationHistory(when.stateAfter());
      expect(history.map((event) => event.action_instance_id)).toEqual([toolId(1), toolId(1), toolId(1)]);
    });

    it('a valid return adds the outer triple after the tool triples', () => {
      const history = invocationHistory(spec.given(given).when(closeReturned()).stateAfter());
      expect(history.map((event) => event.action_instance_id)).toEqual([
        toolId(1),
        toolId(1),
        toolId(1),
        INVOCATION_ID,
        INVOCATION_ID,
        INVOCATION_ID,
      ]);
    });
  });
});

describe('the lifecycle of the port', () => {
  it('opens, then activates when dispatch begins', () => {
    spec.given([]).when(open()).then([opened()]);
    spec.given([opened()]).when(activate).then([{ type: 'InvocationActivated', at: AT, invocation_action_instance_id: INVOCATION_ID }]);
  });

  it('refuses a second open and a second activation with state_conflict', () => {
    spec.given([opened()]).when(open()).thenRefuses('state_conflict');
    spec.given(activeInvocation()).when(activate).thenRefuses('state_conflict');
  });

  it.each([
    ['dispatch', dispatch(1)],
    ['cancel', cancel(1)],
  ] as const)('refuses %s before dispatch began with invocation_inactive', (_name, command) => {
    spec.given([opened()]).when(command).thenRefuses('invocation_inactive');
  });

  it.each([
    ['activate', activate],
    ['close', closeThrew],
    ['recover', recover],
    ['resolve', resolve(1)],
  ] as const)('refuses %s of an invocation never opened with state_conflict', (_name, command) => {
    spec.given([]).when(command).thenRefuses('state_conflict');
  });

  it('an invocation closed before dispatch began still closes', () => {
    spec.given([opened()]).when(closeThrew).then([threw]);
  });
});

describe('calls that name a tool action', () => {
  it.each([
    ['dispatch', dispatch(3)],
    ['complete', complete(3)],
    ['reportUnknown', reportUnknown(3)],
    ['cancel', cancel(3)],
  ] as const)('%s of an id never admitted: action_unknown', (_name, command) => {
    spec.given([...activeInvocation(), admitted(1)]).when(command).thenRefuses('action_unknown');
  });

  it('dispatches an admitted action once', () => {
    spec.given([...activeInvocation(), admitted(1)]).when(dispatch(1)).then([dispatched(1)]);
    spec.given([...activeInvocation(), admitted(1), dispatched(1)]).when(dispatch(1)).thenRefuses('state_conflict');
  });

  it('will not complete or report unknown before dispatch', () => {
    spec.given([...activeInvocation(), admitted(1)]).when(complete(1)).thenRefuses('state_conflict');
    spec.given([...activeInvocation(), admitted(1)]).when(reportUnknown(1)).thenRefuses('state_conflict');
  });

  it('settles an action once', () => {
    const given = [...activeInvocation(), admitted(1), dispatched(1), completed(1)];
    for (const command of [complete(1), reportUnknown(1), cancel(1), dispatch(1)]) {
      spec.given(given).when(command).thenRefuses('state_conflict');
    }
  });
});

describe('recovery after a restart', () => {
  it('undispatched -> withheld, dispatched without outcome -> indeterminate, closes as if it threw', () => {
    const outcome = spec
      .given([...activeInvocation(), admitted(1), admitted(2), dispatched(2), admitted(3), dispatched(3), completed(3)])
      .when(recover);
    outcome.then([
      withheld(1, 'recovered'),
      indeterminate(2, 'dispatched without outcome when the engine restarted'),
      { type: 'InvocationClosed', at: AT, invocation_action_instance_id: INVOCATION_ID, recovered: true, outcome: 'threw' },
    ]);
    expect(schedulerMustStop(outcome.stateAfter())).toBe(true);
    expect(invocationHistory(outcome.stateAfter())).toHaveLength(9);
  });

  it('never settles a dispatched action withheld', () => {
    const events = spec.given([...activeInvocation(), admitted(1), dispatched(1)]).when(recover).events();
    expect(events.some((event) => event.type === 'ToolActionSettled' && event.settlement === 'withheld')).toBe(false);
  });
});

describe("the operator's resolution of an indeterminate action", () => {
  const closedWithIndeterminate = [...activeInvocation(), admitted(1), dispatched(1), indeterminate(1, 'timeout'), threw];

  it('is allowed after close and lets the scheduler run again', () => {
    const outcome = spec.given(closedWithIndeterminate).when(resolve(1, 'absent'));
    outcome.then([
      {
        type: 'ToolActionResolved',
        at: AT,
        invocation_action_instance_id: INVOCATION_ID,
        action_instance_id: toolId(1),
        effect: 'absent',
        evidence_ref: 'evidence.operator-review-17',
      },
    ]);
    expect(schedulerMustStop(spec.given(closedWithIndeterminate).state())).toBe(true);
    expect(schedulerMustStop(outcome.stateAfter())).toBe(false);
  });

  it('keeps the recorded history: the action stays unknown / orphaned_action', () => {
    const after = spec.given(closedWithIndeterminate).when(resolve(1)).stateAfter();
    expect(invocationHistory(after)).toEqual(invocationHistory(spec.given(closedWithIndeterminate).state()));
  });

  it('refuses to resolve twice, or an action that is not indeterminate', () => {
    const resolvedOnce = spec.given(closedWithIndeterminate).when(resolve(1)).events();
    spec.given([...closedWithIndeterminate, ...resolvedOnce]).when(resolve(1)).thenRefuses('state_conflict');
    spec.given([...activeInvocation(), admitted(1), dispatched(1), completed(1), threw]).when(resolve(1)).thenRefuses('state_conflict');
    spec.given(closedWithIndeterminate).when(resolve(7)).thenRefuses('action_unknown');
  });
});

describe('tool results never reach an event (SPEC.md section 5)', () => {
  const TOOL_OUTPUT = 'session-cookie=tool-output-7f3a';
  const withToolOutput = (result: object) => ({
    ...result,
    output: TOOL_OUTPUT,
    effects: [{ effect_id: 'login', effect_class: 'intended_effect', description: 'the form answered', raw_response: TOOL_OUTPUT }],
  });

  it('complete keeps only the fields of ParticipantActionResultModel', () => {
    const events = spec.given([...activeInvocation(), admitted(1), dispatched(1)]).when(complete(1, withToolOutput(toolResult(1)))).events();
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain(TOOL_OUTPUT);
  });

  it('a returned outer result keeps only the fields of ParticipantActionResultModel', () => {
    const events = spec.given(activeInvocation()).when(closeReturned(withToolOutput(outerResult()))).events();
    expect(events.map((event) => (event.type === 'InvocationClosed' ? event.outcome : event.type))).toEqual(['returned']);
    expect(JSON.stringify(events)).not.toContain(TOOL_OUTPUT);
  });
});
