import { MemoryEventStore } from '../../../adapters/event-store';
import { runMcpDemo } from '../../../examples/mcp/demo';
import { DEMO_ACCOUNT } from '../../../examples/mcp/portal-service';

/** The MCP portal-probe example end to end: portal, stdio MCP server, scripted agent, runtime manager. */
describe('runMcpDemo', () => {
  jest.setTimeout(30_000);

  it('admits, runs and settles each scripted call, and stops the participant after the timed-out one', async () => {
    const store = new MemoryEventStore();
    const lines: string[] = [];
    const run = await runMcpDemo({ store, write: (line) => lines.push(line) });

    expect(run.calls.map((call) => [call.tool, call.outcome, call.code])).toEqual([
      ['probe_login', 'succeeded', undefined],
      ['reset_portal', 'refused', 'tool_unmapped'],
      ['probe_login', 'failed', undefined],
      ['probe_login', 'succeeded', undefined],
      ['probe_login', 'unknown', 'timeout'],
    ]);
    expect(run.probeCalls).toBe(4); // the refused call never reached the server
    expect(run.serverStderr).toContain('probe_login call 4');
    expect(run.progress.filter((p) => p.kind === 'invocation_opened')).toHaveLength(3);
    expect(run.progress).toContainEqual({
      kind: 'scheduler_stopped',
      participant_address: 'participant.behavior.participant-agent',
      reason: 'indeterminate_tool_action',
    });
    const printed = lines.join('\n');
    expect(printed).toContain('unknown (timeout)');
    expect(printed).not.toContain(DEMO_ACCOUNT.password);
  });
});
