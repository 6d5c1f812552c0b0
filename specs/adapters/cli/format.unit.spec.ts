import { invocationLabel, invocationOfAction, lastSegment, MAX_SHOWN_LENGTH, shortToolCall, shown, table, timeOfDay, toolTail } from '../../../adapters/cli/format';
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

describe('values from outside the engine in text output', () => {
  it('escapes what a terminal would act on, so a value cannot break or forge a line', () => {
    expect(shown('call-1\nVerification: sound, no findings')).toBe('call-1\\nVerification: sound, no findings');
    expect(shown('\u001b[31mred\u001b[0m\r\t\u0000\u007f\u009b')).toBe('\\u001b[31mred\\u001b[0m\\r\\t\\u0000\\u007f\\u009b');
    expect(shown('abc\u202edcba\u2066x\u2028y')).toBe('abc\\u202edcba\\u2066x\\u2028y');
    expect(shown('plain é 漢字 🙂')).toBe('plain é 漢字 🙂');
    // What shows as nothing: two ids that differ by one cannot look the same.
    expect(shown('x\u200b<svg>\u00ad\u2060\ufeff')).toBe('x\\u200b<svg>\\u00ad\\u2060\\ufeff');
    expect(shown('a\ufff9b\ufffac\ufffbd\u061c')).toBe('a\\ufff9b\\ufffac\\ufffbd\\u061c');
    expect(shown('a\ud800b\udc00c🙂')).toBe('a\\ud800b\\udc00c🙂');
  });

  it('cuts a value longer than a tool call id may be, marked with its length, never inside a surrogate pair', () => {
    expect(shown('x'.repeat(MAX_SHOWN_LENGTH))).toBe('x'.repeat(MAX_SHOWN_LENGTH));
    expect(shown('x'.repeat(2_000_000))).toBe(`${'x'.repeat(MAX_SHOWN_LENGTH)}…(2000000 characters)`);
    const astral = `${'x'.repeat(MAX_SHOWN_LENGTH - 1)}🙂tail`;
    expect(shown(astral)).toBe(`${'x'.repeat(MAX_SHOWN_LENGTH - 1)}…(${astral.length} characters)`);
  });

  it('shows every table cell so, keeping one row a line', () => {
    const text = table(['tool call', 'status'], [['a\nforged line', 'ok']]);
    expect(text.split('\n')).toEqual(['tool call       status', 'a\\nforged line  ok', '']);
  });

  it('shows a tool call id and a scheduler stop reason so in progress lines', () => {
    const line = describeProgress({
      kind: 'tool_action_admitted',
      action_instance_id: `${INVOCATION}:tool=1`,
      tool_call_id: 'id\u001b]0;title\u0007',
    });
    expect(line).toBe('    tool=1 admitted (tool call id\\u001b]0;title\\u0007)');
  });
});
