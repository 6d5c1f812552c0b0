import { invocationLabel, invocationOfAction, lastSegment, shortToolCall, table, timeOfDay, toolTail } from '../../../adapters/cli/format';
import { describeProgress } from '../../../adapters/cli/progress';

const INVOCATION = 'participant.autonomous-execution.participant-behavior:participant.behavior.participant-agent:3';

describe('CLI labels', () => {
  it('names an invocation by its participant and attempt, and a tool action by its tail', () => {
    expect(invocationLabel(INVOCATION)).toBe('participant-agent attempt 3');
    expect(toolTail(`${INVOCATION}:tool=12`)).toBe('tool=12');
    expect(invocationOfAction(`${INVOCATION}:tool=12`)).toBe(INVOCATION);
    expect(invocationOfAction(INVOCATION)).toBe(INVOCATION);
    expect(lastSegment('participant.behavior.participant-agent')).toBe('participant-agent');
  });

  it('shortens a tool call id only when it starts with its invocation id', () => {
    expect(shortToolCall(`${INVOCATION}#call-2`, INVOCATION)).toBe('#call-2');
    expect(shortToolCall('GQR2DDzIsyph3qpMQIbta', INVOCATION)).toBe('GQR2DDzIsyph3qpMQIbta');
    expect(shortToolCall(INVOCATION, INVOCATION)).toBe(INVOCATION);
  });

  it('prints UTC times of day, and a dash for none', () => {
    expect(timeOfDay('2026-12-02T15:51:49.188Z')).toBe('15:51:49.188');
    expect(timeOfDay(null)).toBe('-');
  });

  it('aligns table columns and trims trailing blanks', () => {
    expect(table(['a', 'long header', 'c'], [['xyz', '', 'last'], ['1', '2', '']])).toBe('a    long header  c\nxyz               last\n1    2\n');
  });
});

describe('progress lines', () => {
  it('say what happened to whom, never more', () => {
    expect(describeProgress({ kind: 'invocation_opened', invocation_action_instance_id: INVOCATION, tick: 4 })).toBe(
      `tick 4: participant-agent attempt 3 starts (invocation ${INVOCATION})`,
    );
    expect(describeProgress({ kind: 'tool_action_admitted', action_instance_id: `${INVOCATION}:tool=1`, tool_call_id: `${INVOCATION}#call-1` })).toBe(
      '    tool=1 admitted (tool call #call-1)',
    );
    expect(describeProgress({ kind: 'tool_action_settled', action_instance_id: `${INVOCATION}:tool=1`, settlement: 'indeterminate' })).toBe(
      '    tool=1 in participant-agent attempt 3 settled: indeterminate',
    );
    expect(
      describeProgress({
        kind: 'invocation_closed',
        invocation_action_instance_id: INVOCATION,
        outcome: 'consumed',
        indeterminate_action_ids: [`${INVOCATION}:tool=1`],
        recovered: true,
      }),
    ).toBe('  participant-agent attempt 3 closed by recovery: attempt consumed, indeterminate: tool=1');
  });
});
