import { INVOCATION, MANIFEST, SCENARIO, cli, json, killWhen, scratchDir, signalWhen, type Run } from './support/cli';

jest.setTimeout(120_000);

interface Recovery {
  recovered_invocations: { invocation_action_instance_id: string; outcome: string; indeterminate_action_ids: string[] }[];
  settled_tool_actions: { action_instance_id: string; settlement: string }[];
  stopped_schedulers: { participant_address: string; reason: string }[];
}

describe('raes-tools recover after a run killed with SIGKILL', () => {
  const dataDir = scratchDir('recover');
  const store = ['--data-dir', dataDir];

  it('settles the dispatched, unanswered tool action indeterminate and closes the invocation', async () => {
    // Each scripted tool call runs 5 s: the kill lands while tool=1 runs, after its dispatch is durable.
    let whileRunning: Run | undefined;
    const killed = await killWhen(
      ['run', SCENARIO, '--manifest', MANIFEST, ...store, '--episode', 'episode-killed', '--tool-delay-ms', '5000'],
      /tool=1 admitted/,
      1_000,
      () => {
        whileRunning = cli('recover', ...store);
      },
    );
    expect(killed.signal).toBe('SIGKILL');
    // Recovery would close the live run's invocation: the data dir's writer lock refuses it.
    expect(whileRunning?.status).toBe(1);
    expect(whileRunning?.stderr).toMatch(/^raes-tools recover: .* is in use by `raes-tools run` \(pid \d+\); wait for it to finish, or use another --data-dir\n$/);

    const before = json<{ open_invocations: string[]; invocations: unknown[] }>(cli('audit', ...store, '--json'));
    expect(before.open_invocations).toEqual([INVOCATION(1)]);
    expect(before.invocations).toEqual([]);
    expect(json<{ operation: { state: string } }>(cli('operations', 'get', `${INVOCATION(1)}:tool=1`, ...store, '--json')).operation.state).toBe('dispatched');

    const recovered = cli('recover', ...store, '--json');
    expect(recovered.status).toBe(0);
    const report = json<Recovery>(recovered);
    expect(report.recovered_invocations).toEqual([
      { invocation_action_instance_id: INVOCATION(1), outcome: 'consumed', indeterminate_action_ids: [`${INVOCATION(1)}:tool=1`] },
    ]);
    expect(report.settled_tool_actions).toEqual([{ action_instance_id: `${INVOCATION(1)}:tool=1`, settlement: 'indeterminate' }]);
    expect(report.stopped_schedulers).toEqual([
      { participant_address: 'participant.behavior.participant-agent', reason: 'indeterminate_tool_action' },
    ]);

    const after = json<{ sound: boolean; open_invocations: string[]; invocations: { outer_status: string | null; tool_actions: { settlement: string }[] }[] }>(
      cli('audit', ...store, '--json'),
    );
    expect(after.sound).toBe(true);
    expect(after.open_invocations).toEqual([]);
    expect(after.invocations).toEqual([expect.objectContaining({ outer_status: null, tool_actions: [expect.objectContaining({ settlement: 'indeterminate' })] })]);
  });

  it('finds nothing more to recover the second time', () => {
    const again = cli('recover', '--data-dir', dataDir);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^nothing to recover in .*: no invocation was left open$/m);
  });
});

describe('raes-tools run stopped with SIGTERM (or Ctrl-C)', () => {
  it('finishes the invocation in hand, stops before the next tick and leaves nothing open, exit 130', async () => {
    const dataDir = scratchDir('interrupt');
    const run = await signalWhen(
      ['run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir, '--ticks', '5', '--tool-delay-ms', '300'],
      /tool=1 admitted/,
      'SIGTERM',
    );
    expect(run.status).toBe(130);
    expect(run.stderr).toMatch(/^interrupted: finishing the invocation in hand/m);
    expect(run.stdout).toMatch(/^interrupted before the run was done: run it again to continue$/m);
    const audit = json<{ sound: boolean; open_invocations: string[]; invocations: { tool_actions: unknown[] }[] }>(cli('audit', '--data-dir', dataDir, '--json'));
    expect(audit.sound).toBe(true);
    expect(audit.open_invocations).toEqual([]);
    expect(audit.invocations).toEqual([expect.objectContaining({ tool_actions: [expect.anything(), expect.anything(), expect.anything()] })]);
  });
});
