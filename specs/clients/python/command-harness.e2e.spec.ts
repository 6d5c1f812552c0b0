import { join } from 'node:path';
import { INVOCATION, MANIFEST, ROOT, SCENARIO, cli, json, scratchDir } from '../../adapters/cli/support/cli';

/**
 * `raes-tools run --harness command:python3 ...`: a Python process per invocation, reaching its port
 * over the remote port with the URL and secret the engine puts in its environment.
 */

jest.setTimeout(120_000);

const HARNESS = join(ROOT, 'examples', 'python', 'portal_harness.py');

describe('a Python harness through --harness command:', () => {
  const dataDir = scratchDir('python-harness');
  let run: ReturnType<typeof cli>;

  beforeAll(() => {
    run = cli('run', SCENARIO, '-m', MANIFEST, '--harness', `command:python3 ${HARNESS}`, '--data-dir', dataDir, '--json');
  });

  it('runs the process per invocation: a completed call, a refused one never run, then a timeout that stops the participant', () => {
    expect(run.status).toBe(0);
    const summary = json<{ harness: string; invocations: { invocation_action_instance_id: string; outcome: string; tool_actions: { tool_call_id: string; settlement: string }[] }[]; schedulers: { status: string }[] }>(run);
    expect(summary.harness).toBe('command');
    expect(summary.invocations.map((i) => [i.invocation_action_instance_id, i.outcome, i.tool_actions.map((a) => a.settlement)])).toEqual([
      [INVOCATION(1), 'succeeded', ['completed']],
      [INVOCATION(2), 'failed', ['indeterminate']],
    ]);
    expect(summary.schedulers).toEqual([expect.objectContaining({ status: 'stopped' })]);
    expect(run.stderr).toMatch(/command of participant-agent attempt 1: exited 0/);
  });

  it('leaves a sound history the audit verifies', () => {
    const audit = cli('audit', '--data-dir', dataDir, '--json');
    expect(audit.status).toBe(0);
    const report = json<{ sound: boolean; invocations: { tool_actions: { status: string | null }[] }[] }>(audit);
    expect(report.sound).toBe(true);
    expect(report.invocations.map((i) => i.tool_actions.map((a) => a.status))).toEqual([['succeeded'], ['unknown']]);
  });
});
