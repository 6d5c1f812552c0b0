import { invocationHistory, type BehaviorHistoryEvent } from '../../../domain/invocation';
import {
  INVOCATION_ID,
  OUTER_CONTRACT,
  POLICY,
  PROBE_LOGIN,
  VIEW,
  activeInvocation,
  admitted,
  completed,
  dispatched,
  indeterminate,
  outerAction,
  request,
  returned,
  threw,
  toolId,
  withheld,
} from './fixtures';

/** SPEC.md section 6: the behavior history a closed invocation yields. */
const closedInvocation = [
  ...activeInvocation(),
  admitted(1, request('call-1')),
  admitted(2, request('call-2')),
  admitted(3, request('call-3')),
  dispatched(2),
  indeterminate(2, 'timeout'),
  dispatched(3),
  completed(3),
  withheld(1, 'cancelled'),
  returned,
];

const byAction = (history: readonly BehaviorHistoryEvent[], id: string) =>
  history.filter((event) => event.action_instance_id === id);

describe('invocation history (SPEC.md section 6)', () => {
  const history = invocationHistory(closedInvocation);

  it('has the tool triples in admission order, then the outer triple', () => {
    expect(history.map((event) => [event.action_instance_id, event.event_type])).toEqual([
      ...[1, 2, 3].flatMap((ordinal) => [
        [toolId(ordinal), 'action_attempted'],
        [toolId(ordinal), 'state_transition_recorded'],
        [toolId(ordinal), 'observation_emitted'],
      ]),
      [INVOCATION_ID, 'action_attempted'],
      [INVOCATION_ID, 'state_transition_recorded'],
      [INVOCATION_ID, 'observation_emitted'],
    ]);
  });

  it('puts actor provenance on the first event and a sha256 digest on the last two', () => {
    for (let start = 0; start < history.length; start += 3) {
      const [attempted, transition, observation] = history.slice(start, start + 3);
      expect(attempted?.actor_provenance).toBe(outerAction.actor_provenance);
      expect(attempted?.post_state_digest).toBeNull();
      expect(transition?.post_state_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(observation?.post_state_digest).toBe(transition?.post_state_digest);
      expect(observation?.observation_boundary_address).toBe(VIEW);
      expect(observation?.action_result).not.toBeNull();
    }
    const digests = history.filter((_, index) => index % 3 === 1).map((event) => event.post_state_digest);
    expect(new Set(digests).size).toBe(digests.length);
  });

  it('records withheld, unknown / orphaned_action and completed settlements', () => {
    const observation = (ordinal: number) => byAction(history, toolId(ordinal))[2];
    expect(observation(1)?.action_result?.status).toBe('withheld');
    expect(observation(1)?.observation_status).toBe('terminal');
    expect(observation(2)?.action_result?.status).toBe('unknown');
    expect(observation(2)?.observation_status).toBe('orphaned_action');
    expect(observation(3)?.action_result?.status).toBe('succeeded');
    expect(observation(3)?.observation_status).toBe('terminal');
  });

  it('gives every tool-action event the complete invocation_tool_context, and the outer events none', () => {
    for (const event of byAction(history, toolId(2))) {
      expect(event.invocation_tool_context).toEqual({
        invocation_action_instance_id: INVOCATION_ID,
        invocation_action_contract_address: OUTER_CONTRACT,
        tool_affordance_address: request().tool_affordance_address,
        tool_call_id: 'call-2',
        admission_ordinal: 2,
        settlement: 'indeterminate',
        execution_scope_ref: POLICY,
        execution_generation: 0,
      });
      expect(event.action_contract_address).toBe(PROBE_LOGIN);
    }
    for (const event of byAction(history, INVOCATION_ID)) expect(event.invocation_tool_context).toBeUndefined();
  });

  it('is the same from the events and from the folded state, and deterministic', () => {
    expect(invocationHistory(closedInvocation)).toEqual(history);
  });

  it('has no outer triple when the invocation threw', () => {
    const threwHistory = invocationHistory([...closedInvocation.slice(0, -1), threw]);
    expect(threwHistory).toHaveLength(9);
    expect(byAction(threwHistory, INVOCATION_ID)).toEqual([]);
  });

  it('is empty while the invocation is still open', () => {
    expect(invocationHistory(closedInvocation.slice(0, -1))).toEqual([]);
  });
});
