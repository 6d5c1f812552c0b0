import { startPostgresServer, type PostgresServer } from '../event-store/postgres/support/postgres-server';
import { INVOCATION, MANIFEST, PARTICIPANT, SCENARIO, cli, cliWithEnv, json, scratchDir, withoutStack } from './support/cli';

jest.setTimeout(120_000);

interface AuditJson {
  invocations: { invocation_action_instance_id: string; participant_address: string; episode_id: string; tool_actions: { settlement: string }[] }[];
  findings: unknown[];
  sound: boolean;
}

describe('raes-tools run then audit on PostgreSQL', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 120_000);
  afterAll(async () => server?.stop(), 60_000);

  it('records the run in the server store and audits it from there, with the URL from the flag or the environment', () => {
    const dataDir = scratchDir('run-audit-postgres');
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-pg', '--store', 'postgres', '--postgres-url', server.url, '--data-dir', dataDir, '--json');
    expect(run.status).toBe(0);
    // One client never runs two queries at once (pg deprecates it, and would warn on every command).
    expect(run.stderr).not.toContain('DeprecationWarning');
    const audit = cliWithEnv({ RAES_POSTGRES_URL: server.url, RAES_EVENT_STORE: 'postgres' }, 'audit', '--data-dir', dataDir, '--json');
    expect(audit.status).toBe(0);
    expect(audit.stderr).not.toContain('DeprecationWarning');
    const report = json<AuditJson>(audit);
    expect(report.sound).toBe(true);
    expect(report.findings).toEqual([]);
    expect(report.invocations.map((i) => [i.invocation_action_instance_id, i.participant_address, i.episode_id, i.tool_actions.map((a) => a.settlement)])).toEqual([
      [INVOCATION(1), PARTICIPANT, 'episode-pg', ['completed', 'indeterminate', 'completed']],
    ]);
  });

  it('refuses to start when the server cannot be reached: exit 1, one sentence naming the server and the setting', () => {
    const dataDir = scratchDir('run-postgres-down');
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--store', 'postgres', '--postgres-url', 'postgres://raes:secret@127.0.0.1:1/events', '--data-dir', dataDir);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^raes-tools run: .*cannot reach PostgreSQL at 127\.0\.0\.1:1\/events .*--postgres-url \/ RAES_POSTGRES_URL/);
    // A server that does not answer is not a damaged store: no advice to restore it from a backup.
    expect(run.stderr).not.toContain('backup');
    expect(run.stderr).not.toContain('secret');
    expect(withoutStack(run)).toBe(true);
  });
});
