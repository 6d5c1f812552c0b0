import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgresServer, type PostgresServer } from '../event-store/postgres/support/postgres-server';
import { participantOf, PARTICIPANT, scenarioText } from '../../domain/application/support/world';
import { MANIFEST, cli, json, scratchDir, withoutStack } from './support/cli';

jest.setTimeout(120_000);

interface RunJson {
  invocations: { invocation_action_instance_id: string }[];
}

const OTHER = participantOf('agent-1');
const participantOfInvocation = (invocationId: string): string => invocationId.split(':')[1]!;

/** `run --participant`: engines sharing one PostgreSQL store split its participants through their leases. */
describe('raes-tools run by several engines on one PostgreSQL store', () => {
  let server: PostgresServer;
  let scenario: string;
  beforeAll(async () => {
    server = await startPostgresServer();
    scenario = join(scratchDir('several-engines'), 'two-participants.scenario.yaml');
    writeFileSync(scenario, scenarioText({ extraAgents: 1, cadenceTicks: 1 }));
  }, 120_000);
  afterAll(async () => server?.stop(), 60_000);

  const run = (dataDir: string, participant: string) =>
    cli('run', scenario, '--manifest', MANIFEST, '--store', 'postgres', '--postgres-url', server.url, '--data-dir', dataDir, '--participant', participant, '--ticks', '3', '--json');

  it('runs only the participants each engine claims, and never one another engine released', () => {
    const first = run(scratchDir('engine-1'), PARTICIPANT);
    expect(first.status).toBe(0);
    const second = run(scratchDir('engine-2'), OTHER);
    expect(second.status).toBe(0);
    const firstRan = json<RunJson>(first).invocations.map((i) => participantOfInvocation(i.invocation_action_instance_id));
    const secondRan = json<RunJson>(second).invocations.map((i) => participantOfInvocation(i.invocation_action_instance_id));
    expect(firstRan.length).toBeGreaterThan(0);
    expect(new Set(firstRan)).toEqual(new Set([PARTICIPANT]));
    expect(secondRan.length).toBeGreaterThan(0);
    expect(new Set(secondRan)).toEqual(new Set([OTHER]));
  });

  it('refuses a --participant the scenario does not have, and --participant on SQLite, with exit 2', () => {
    const unknown = run(scratchDir('engine-unknown'), 'participant.behavior.nobody');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('--participant names no participant of the scenario: participant.behavior.nobody');
    const sqlite = cli('run', scenario, '--manifest', MANIFEST, '--data-dir', scratchDir('engine-sqlite'), '--participant', PARTICIPANT);
    expect(sqlite.status).toBe(2);
    expect(sqlite.stderr).toContain('--participant splits participants among engines sharing a server store');
    expect(withoutStack(sqlite)).toBe(true);
  });
});
