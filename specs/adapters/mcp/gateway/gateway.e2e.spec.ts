import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INVOCATION, MANIFEST, SCENARIO, cli, json, scratchDir } from '../../cli/support/cli';

/**
 * `raes-tools run --harness gateway:<config>`: an unmodified MCP client process (the SDK's Client,
 * standing in for an agent) gets the MCP configuration the engine writes for each invocation, and
 * reaches an upstream stdio MCP server only through the engine's gateway.
 */

jest.setTimeout(120_000);

const SUPPORT = join(__dirname, 'support');

interface AgentReport {
  server: string;
  transport: string;
  pages: number;
  listed: string[];
  invalidCursorCode: number | null;
  calls: { tool: string; isError: boolean; text: string; admission: { outcome: string; refusal?: string; reason?: string; action_instance_id?: string } | null }[];
}


/** Every byte under a folder, for the marker search (SQLite files, WAL, views, job file). */
const bytesUnder = (folder: string): Buffer =>
  Buffer.concat(
    readdirSync(folder, { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? bytesUnder(join(folder, entry.name)) : readFileSync(join(folder, entry.name)),
    ),
  );

describe.each(['http', 'stdio'] as const)('the MCP gateway, with an agent command and an upstream stdio server (agent on %s)', (transport) => {
  const work = scratchDir(`gateway-${transport}`);
  const dataDir = join(work, 'data');
  const reports = join(work, 'reports');
  const upstreamCalls = join(work, 'upstream-calls.txt');
  const ARGUMENT_MARKER = `argument-marker-${randomBytes(8).toString('hex')}`;
  const RESULT_MARKER = `result-marker-${randomBytes(8).toString('hex')}`;
  const report = (attempt: number): AgentReport => JSON.parse(readFileSync(join(reports, `attempt-${attempt}.json`), 'utf8')) as AgentReport;
  let run: ReturnType<typeof cli>;
  let audit: ReturnType<typeof cli>;
  let history: ReturnType<typeof cli>;

  beforeAll(() => {
    mkdirSync(reports);
    const config = {
      mcpServers: {
        upstream: {
          command: process.execPath,
          args: [join(SUPPORT, 'upstream-server.mjs')],
          env: { UPSTREAM_CALLS_FILE: upstreamCalls, RESULT_MARKER },
          tools: 'tools.mapping.json',
        },
      },
      agent: {
        command: process.execPath,
        args: [join(SUPPORT, 'agent.mjs'), '{mcp_config}'],
        env: { AGENT_REPORT_DIR: reports, ARGUMENT_MARKER },
        mcp_transport: transport,
      },
    };
    // The configuration sits beside the mapping it names by a relative path.
    copyFileSync(join(SUPPORT, 'tools.mapping.json'), join(work, 'tools.mapping.json'));
    const configPath = join(work, 'gateway.json');
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    run = cli('run', SCENARIO, '-m', MANIFEST, '--harness', `gateway:${configPath}`, '--data-dir', dataDir, '--episode', 'episode-gateway', '--json');
    audit = cli('audit', '--data-dir', dataDir, '--json');
    history = cli('audit', '--data-dir', dataDir);
  });

  it('runs the agent per invocation until the timed-out call stops the participant', () => {
    expect(run.status).toBe(0);
    const summary = json<{ harness: string; invocations: { invocation_action_instance_id: string; outcome: string; tool_actions: { settlement: string }[] }[]; schedulers: { status: string; stopped_by: { reason: string } | null }[] }>(run);
    expect(summary.harness).toMatch(/^gateway:/);
    expect(summary.invocations.map((i) => [i.invocation_action_instance_id, i.outcome, i.tool_actions.map((a) => a.settlement)])).toEqual([
      [INVOCATION(1), 'succeeded', ['completed']],
      [INVOCATION(2), 'succeeded', ['indeterminate']],
    ]);
    expect(summary.schedulers).toEqual([expect.objectContaining({ status: 'stopped', stopped_by: expect.objectContaining({ reason: 'indeterminate_tool_action' }) })]);
    expect(run.stderr).toMatch(/agent of participant-agent attempt 1: exited 0/);
  });

  it('lists only the afforded tools, passing the pages through', () => {
    const first = report(1);
    expect(first.server).toBe('raes-tool-actions');
    expect(first.transport).toBe(transport);
    expect(first.listed).toEqual(['lookup', 'slow']);
    // The upstream has two pages of two tools; the gateway passes its cursor on.
    expect(first.pages).toBe(2);
    expect(first.invalidCursorCode).toBe(-32602);
  });

  it('forwards an admitted call upstream and hands the result to the agent, with the admission in _meta', () => {
    const [lookup] = report(1).calls;
    expect(lookup).toMatchObject({ tool: 'lookup', isError: false, text: `${RESULT_MARKER} for ${ARGUMENT_MARKER}` });
    expect(lookup?.admission).toEqual(expect.objectContaining({ outcome: 'succeeded', action_instance_id: `${INVOCATION(1)}:tool=1` }));
  });

  it('answers a refused call with an isError result naming its code, and the tool never runs', () => {
    const [, hidden, unafforded] = report(1).calls;
    expect(hidden).toMatchObject({ tool: 'hidden', isError: true, admission: expect.objectContaining({ outcome: 'refused', refusal: 'tool_unmapped' }) });
    expect(hidden?.text).toMatch(/^tool call refused \(tool_unmapped\): hidden was not run/);
    expect(unafforded).toMatchObject({ tool: 'unafforded', isError: true, admission: expect.objectContaining({ outcome: 'refused', refusal: 'affordance_unbound' }) });
    const arrived = readFileSync(upstreamCalls, 'utf8').trim().split('\n');
    expect(arrived).toEqual(['lookup', 'slow']);
  });

  it('settles a call past its timeout indeterminate, and tells the agent its effects are unknown', () => {
    const [slow] = report(2).calls;
    expect(slow).toMatchObject({ tool: 'slow', isError: true, admission: expect.objectContaining({ outcome: 'unknown', reason: 'timeout' }) });
    expect(existsSync(join(reports, 'attempt-3.json'))).toBe(false);
  });

  it('records the history: the audit shows each settlement and is sound', () => {
    expect(audit.status).toBe(0);
    const body = json<{ sound: boolean; invocations: { invocation_action_instance_id: string; tool_actions: { settlement: string; status: string | null }[] }[] }>(audit);
    expect(body.sound).toBe(true);
    expect(body.invocations.map((i) => [i.invocation_action_instance_id, i.tool_actions.map((a) => [a.settlement, a.status])])).toEqual([
      [INVOCATION(1), [['completed', 'succeeded']]],
      [INVOCATION(2), [['indeterminate', 'unknown']]],
    ]);
  });

  it('stores no argument or result byte: not in the store, the views, the job file or any output', () => {
    // The markers did travel: the agent saw both.
    expect(JSON.stringify(report(1))).toContain(RESULT_MARKER);
    const stored = bytesUnder(dataDir);
    expect(stored.length).toBeGreaterThan(0);
    for (const marker of [ARGUMENT_MARKER, RESULT_MARKER]) {
      expect(stored.includes(Buffer.from(marker))).toBe(false);
      for (const output of [run.stdout, run.stderr, audit.stdout, audit.stderr, history.stdout, history.stderr]) expect(output).not.toContain(marker);
    }
  });
});
