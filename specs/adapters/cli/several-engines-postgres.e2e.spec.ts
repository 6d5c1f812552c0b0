import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgresServer, type PostgresServer } from '../event-store/postgres/support/postgres-server';
import { participantOf, PARTICIPANT, scenarioText } from '../../domain/application/support/world';
import { INVOCATION, MANIFEST, SCENARIO, cli, json, killWhen, scratchDir, withoutStack, type Run } from './support/cli';

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

  // One episode the engines share (a store holds many; each data dir would otherwise start its own).
  const run = (dataDir: string, participant: string) =>
    cli('run', scenario, '--manifest', MANIFEST, '--store', 'postgres', '--postgres-url', server.url, '--data-dir', dataDir, '--episode', 'episode-shared', '--participant', participant, '--ticks', '3', '--json');

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

interface Recovery {
  recovered_invocations: { invocation_action_instance_id: string; indeterminate_action_ids: string[] }[];
  held_elsewhere?: { participant_address: string; owner: string; expires_at: string }[];
}

describe('raes-tools recover beside an engine on one PostgreSQL store', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
    // The killed run's lease lasts 2 s (cleanEnv passes it on to every command of this file).
    process.env.RAES_LEASE_MS = '2000';
  }, 120_000);
  afterAll(async () => {
    delete process.env.RAES_LEASE_MS;
    await server?.stop();
  }, 60_000);

  it("leaves a live engine's participant to it, naming the engine, and recovers it once the killed engine's lease expired", async () => {
    const dataDir = scratchDir('killed-engine');
    const store = ['--store', 'postgres', '--postgres-url', server.url, '--data-dir', dataDir];
    let whileRunning: Run | undefined;
    // Each scripted tool call runs 5 s: the kill lands while tool=1 runs, after its dispatch is durable.
    const killed = await killWhen(['run', SCENARIO, '--manifest', MANIFEST, ...store, '--episode', 'episode-killed', '--tool-delay-ms', '5000'], /tool=1 admitted/, 500, () => {
      whileRunning = cli('recover', ...store, '--json');
    });
    expect(killed.signal).toBe('SIGKILL');
    // No pid lock on a server store: the command ran, and left the participant to the engine holding it.
    expect(whileRunning?.status).toBe(0);
    const beside = json<Recovery>(whileRunning!);
    expect(beside.recovered_invocations).toEqual([]);
    expect(beside.held_elsewhere).toEqual([{ participant_address: PARTICIPANT, owner: expect.stringMatching(/:\d+:/), expires_at: expect.any(String) }]);

    // Until the lease expires the participant stays the killed engine's; then recover takes it.
    let report: Recovery | undefined;
    for (let round = 0; round < 40 && (report === undefined || report.held_elsewhere !== undefined); round++) {
      if (report !== undefined) await new Promise((resolve) => setTimeout(resolve, 250));
      const recovered = cli('recover', ...store, '--json');
      expect(recovered.status).toBe(0);
      report = json<Recovery>(recovered);
    }
    expect(report).toEqual({
      data_dir: dataDir,
      episode_id: 'episode-killed',
      recovered_invocations: [{ invocation_action_instance_id: INVOCATION(1), outcome: 'consumed', indeterminate_action_ids: [`${INVOCATION(1)}:tool=1`] }],
      settled_tool_actions: [{ action_instance_id: `${INVOCATION(1)}:tool=1`, settlement: 'indeterminate' }],
      stopped_schedulers: [{ participant_address: PARTICIPANT, reason: 'indeterminate_tool_action' }],
    });
  });
});
