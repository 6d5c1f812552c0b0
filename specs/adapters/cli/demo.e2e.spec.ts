import { cli, scratchDir } from './support/cli';

jest.setTimeout(120_000);

describe('raes-tools demo (what npm start runs)', () => {
  it('runs the MCP example end to end in <data-dir>/demo and prints a sound audit, exit 0', () => {
    const dataDir = scratchDir('demo');
    const started = Date.now();
    const run = cli('demo', '--data-dir', dataDir);
    expect(run.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    const out = run.stdout;
    expect(out).toMatch(/Running on a fresh SQLite store in .*\/demo \(emptied at each demo run\)/);
    expect(out).toMatch(/MCP tool reset_portal: refused \(tool_unmapped\), the tool never ran/);
    expect(out).toMatch(/^3 invocations, 4 tool actions: 3 completed, 0 withheld, 1 indeterminate$/m);
    expect(out).toMatch(/==== Audit ====/);
    expect(out).toMatch(/^ {2}tool=1 .* indeterminate +unknown$/m);
    expect(out).toMatch(/^participant-agent +participant-behavior +stopped \(indeterminate_tool_action\) +3 +tool=1$/m);
    expect(out).toMatch(/^Verification: sound, no findings/m);
    // The run's history is sealed before its audit is printed: every chained event is covered.
    expect(out).toMatch(/^History integrity: (\d+) of \1 events chained in \d+ streams, 1 seal$/m);
    expect(out).not.toContain('not covered by a seal');

    // A second demo starts from an empty folder again: the same three invocations run.
    const again = cli('demo', '--data-dir', dataDir);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^3 invocations, 4 tool actions: 3 completed, 0 withheld, 1 indeterminate$/m);
  });
});
