import { join } from 'node:path';
import { INVOCATION, MANIFEST, ROOT, SCENARIO, cli, json } from '../../adapters/cli/support/cli';

/** examples/gateway as the README runs it: the portal MCP server and an MCP agent, through the gateway. */

jest.setTimeout(120_000);

describe('examples/gateway', () => {
  it('tells the portal-probe story through the gateway: completed calls, then a timeout that stops the participant', () => {
    const run = cli('run', SCENARIO, '-m', MANIFEST, '--harness', `gateway:${join(ROOT, 'examples', 'gateway', 'gateway.json')}`, '--store', 'memory', '--json');
    expect(run.status).toBe(0);
    const summary = json<{ invocations: { invocation_action_instance_id: string; outcome: string; tool_actions: { settlement: string }[] }[]; audit: { sound: boolean; invocations: { tool_actions: { status: string | null }[] }[] } }>(run);
    expect(summary.invocations.map((i) => [i.invocation_action_instance_id, i.outcome, i.tool_actions.map((a) => a.settlement)])).toEqual([
      [INVOCATION(1), 'succeeded', ['completed']],
      [INVOCATION(2), 'succeeded', ['completed', 'completed']],
      [INVOCATION(3), 'failed', ['indeterminate']],
    ]);
    expect(summary.audit.sound).toBe(true);
    expect(summary.audit.invocations.map((i) => i.tool_actions.map((a) => a.status))).toEqual([['succeeded'], ['failed', 'succeeded'], ['unknown']]);
  });
});
