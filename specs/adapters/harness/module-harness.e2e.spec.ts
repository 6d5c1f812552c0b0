import { join } from 'node:path';
import { INVOCATION, MANIFEST, SCENARIO, cli, json, scratchDir, withoutStack } from '../cli/support/cli';

/** `raes-tools run --harness module:<file>`: the user's module gives the participant runtime. */

jest.setTimeout(120_000);

const SUPPORT = join(__dirname, 'support');

describe('run --harness module:<file>', () => {
  it("runs every invocation through the module's runtime, its tool calls admitted and settled", () => {
    const run = cli('run', SCENARIO, '-m', MANIFEST, '--harness', `module:${join(SUPPORT, 'user-runtime.mjs')}`, '--store', 'memory', '--json');
    expect(run.status).toBe(0);
    const summary = json<{ harness: string; invocations: { invocation_action_instance_id: string; outcome: string; tool_actions: { settlement: string }[] }[]; audit: { sound: boolean } }>(run);
    expect(summary.harness).toMatch(/^module:/);
    expect(summary.invocations.map((i) => [i.invocation_action_instance_id, i.outcome, i.tool_actions.map((a) => a.settlement)])).toEqual([
      [INVOCATION(1), 'succeeded', ['completed']],
      [INVOCATION(2), 'succeeded', ['completed']],
      [INVOCATION(3), 'succeeded', ['completed']],
    ]);
    expect(summary.audit.sound).toBe(true);
  });

  it('loads a TypeScript module exporting a harness function', () => {
    const run = cli('run', SCENARIO, '-m', MANIFEST, '--harness', `module:${join(SUPPORT, 'typed-runtime.ts')}`, '--store', 'memory', '--ticks', '1', '--json');
    expect(run.status).toBe(0);
    const summary = json<{ invocations: { outcome: string; tool_actions: { settlement: string }[] }[] }>(run);
    expect(summary.invocations.map((i) => [i.outcome, i.tool_actions.map((a) => a.settlement)])).toEqual([['failed', ['withheld']]]);
  });

  it('refuses a module that exports no runtime with a usage error that says what to export', () => {
    const run = cli('run', SCENARIO, '-m', MANIFEST, '--harness', `module:${join(SUPPORT, 'not-a-runtime.mjs')}`, '--store', 'memory');
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/exports no participant runtime: export createRuntime\(context\), runtime, or harness/);
    expect(withoutStack(run)).toBe(true);
  });

  it('refuses a module that cannot be loaded, naming it', () => {
    const run = cli('run', SCENARIO, '-m', MANIFEST, '--harness', 'module:./no-such-module.js', '--store', 'memory');
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/cannot load the harness module .*no-such-module\.js/);
    expect(withoutStack(run)).toBe(true);
  });
});
