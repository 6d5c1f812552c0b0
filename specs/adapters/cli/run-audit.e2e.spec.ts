import { existsSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { invocationStream } from '../../../domain/streams';
import { INVOCATION, MANIFEST, PARTICIPANT, SCENARIO, cli, json, scratchDir } from './support/cli';

/** The scripted harness: each invocation calls portal-client three times; the second call times out. */

interface AuditJson {
  invocations: {
    invocation_action_instance_id: string;
    participant_address: string;
    episode_id: string;
    outer_status: string | null;
    tool_actions: {
      action_instance_id: string;
      admission_ordinal: number;
      admitted_at: string;
      dispatched_at: string | null;
      settled_at: string | null;
      settlement: string;
      status: string | null;
      resolution: { effect: string; evidence_ref: string } | null;
    }[];
  }[];
  schedulers: { participant_address: string; status: string; stopped_by: { reason: string; action_instance_id: string } | null; unresolved_action_ids: string[] }[];
  findings: unknown[];
  sound: boolean;
}

jest.setTimeout(120_000);

const dataDir = scratchDir('run-audit');
const store = ['--data-dir', dataDir];
const timedOut = `${INVOCATION(1)}:tool=2`;

describe('raes-tools run then audit on SQLite (scripted harness)', () => {
  let first: ReturnType<typeof cli>;

  beforeAll(() => {
    first = cli('run', SCENARIO, '--manifest', MANIFEST, '--episode', 'episode-e2e', ...store, '--json');
  });

  it('runs attempt 1 and stops at its timed-out tool action, with progress on stderr', () => {
    expect(first.status).toBe(0);
    const summary = json<{ episode_id: string; invocations: { invocation_action_instance_id: string; outcome: string; tool_actions: { settlement: string }[] }[]; schedulers: { status: string; unresolved_action_ids: string[] }[] }>(first);
    expect(summary.episode_id).toBe('episode-e2e');
    expect(summary.invocations.map((i) => [i.invocation_action_instance_id, i.outcome, i.tool_actions.map((a) => a.settlement)])).toEqual([
      [INVOCATION(1), 'succeeded', ['completed', 'indeterminate', 'completed']],
    ]);
    expect(summary.schedulers).toEqual([expect.objectContaining({ status: 'stopped', unresolved_action_ids: [timedOut] })]);
    expect(first.stderr).toMatch(/^tick 0: participant-agent attempt 1 starts/m);
    expect(first.stderr).toMatch(/tool=2 admitted/);
    expect(first.stderr).toMatch(/scheduler of participant-agent stopped \(indeterminate_tool_action\)/);
  });

  it('audits the exact settlements, their times in order, and no findings', () => {
    const audit = cli('audit', ...store, '--json');
    expect(audit.status).toBe(0);
    const report = json<AuditJson>(audit);
    expect(report.sound).toBe(true);
    expect(report.findings).toEqual([]);
    expect(report.invocations).toHaveLength(1);
    const [invocation] = report.invocations;
    expect(invocation).toMatchObject({ invocation_action_instance_id: INVOCATION(1), participant_address: PARTICIPANT, episode_id: 'episode-e2e', outer_status: 'succeeded' });
    expect(invocation!.tool_actions.map((a) => [a.admission_ordinal, a.settlement, a.status])).toEqual([
      [1, 'completed', 'succeeded'],
      [2, 'indeterminate', 'unknown'],
      [3, 'completed', 'failed'],
    ]);
    for (const action of invocation!.tool_actions) {
      expect(action.dispatched_at).not.toBeNull();
      expect(action.admitted_at <= action.dispatched_at!).toBe(true);
      expect(action.dispatched_at! <= action.settled_at!).toBe(true);
    }
    expect(report.schedulers).toEqual([
      expect.objectContaining({ participant_address: PARTICIPANT, status: 'stopped', stopped_by: expect.objectContaining({ reason: 'indeterminate_tool_action' }) }),
    ]);
  });

  it('prints the audit as tables for people', () => {
    const audit = cli('audit', ...store);
    expect(audit.status).toBe(0);
    expect(audit.stdout).toMatch(/^Tool history: 1 closed invocation, 3 tool actions \(12 history events\), episode \S+$/m);
    expect(audit.stdout).toMatch(/^ {2}tool=2 +#call-2 +portal-client .* indeterminate +unknown$/m);
    expect(audit.stdout).toMatch(/^Verification: sound, no findings/m);
  });

  it('narrows the audit to a participant, an episode or an invocation', () => {
    expect(json<AuditJson>(cli('audit', ...store, '--json', '--invocation', INVOCATION(1))).invocations).toHaveLength(1);
    expect(json<AuditJson>(cli('audit', ...store, '--json', '--participant', PARTICIPANT)).invocations).toHaveLength(1);
    expect(json<AuditJson>(cli('audit', ...store, '--json', '--episode', 'episode-e2e')).invocations).toHaveLength(1);
    const unknown = cli('audit', ...store, '--json', '--episode', 'another-episode');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^raes-tools audit: no episode another-episode in the store of .*; the episodes it holds: episode-e2e$/m);
  });

  it('reports an operation and its child operations', () => {
    const tool = cli('operations', 'get', timedOut, ...store, '--json');
    expect(tool.status).toBe(0);
    expect(json(tool)).toMatchObject({
      operation: { operation_id: timedOut, operation_kind: 'tool_action', state: 'settled', settlement: 'indeterminate', parent_operation_id: INVOCATION(1) },
      child_operations: [],
    });
    const outer = json<{ child_operations: { operation_id: string }[] }>(cli('operations', 'get', INVOCATION(1), ...store, '--json'));
    expect(outer.child_operations.map((child) => child.operation_id)).toEqual([1, 2, 3].map((n) => `${INVOCATION(1)}:tool=${n}`));
    const unknown = cli('operations', 'get', `${INVOCATION(9)}:tool=1`, ...store);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^raes-tools operations get: no operation .*:9:tool=1 in /);
  });

  it('rebuilds the projections into the same audit', () => {
    const before = cli('audit', ...store, '--json').stdout;
    const rebuilt = cli('projections', 'rebuild', ...store);
    expect(rebuilt.status).toBe(0);
    expect(rebuilt.stdout).toMatch(/^rebuilt open-invocations, participant-history, operations, schedulers, scheduler-snapshots from \d+ events/);
    expect(rebuilt.stderr).toMatch(/replayed \d+ events/);
    expect(cli('audit', ...store, '--json').stdout).toBe(before);
    const one = cli('projections', 'rebuild', 'participant-history', ...store, '--json');
    expect(json(one)).toMatchObject({ projections: ['participant-history'] });
    expect(cli('audit', ...store, '--json').stdout).toBe(before);
  });

  it('keeps the stopped scheduler stopped: a second run starts no invocation', () => {
    const again = cli('run', SCENARIO, '--manifest', MANIFEST, ...store, '--json');
    expect(again.status).toBe(0);
    expect(json<{ episode_id: string; invocations: unknown[] }>(again)).toMatchObject({ episode_id: 'episode-e2e', invocations: [] });
  });

  it('refuses a restart before the resolution, then resolve and restart lift the stop', () => {
    const early = cli('scheduler', 'restart', PARTICIPANT, ...store);
    expect(early.status).toBe(1);
    expect(early.stderr).toMatch(/refused \(indeterminate_unresolved\)/);

    // Before the resolution that counts: a blank evidence ref, an invocation the episode never had.
    const blank = cli('resolve', timedOut, '--effect', 'absent', '--evidence', '   ', ...store);
    expect(blank.status).toBe(2);
    expect(blank.stderr).toMatch(/--evidence is blank/);
    const nowhere = cli('resolve', `${INVOCATION(7)}:tool=1`, '--effect', 'absent', '--evidence', 'x', ...store);
    expect(nowhere.status).toBe(1);
    expect(nowhere.stderr).toContain(`refused (action_unknown): no invocation ${INVOCATION(7)} in episode episode-e2e`);

    const resolved = cli('resolve', timedOut, '--effect', 'absent', '--evidence', 'portal-access-log#42', ...store);
    expect(resolved.status).toBe(0);
    expect(resolved.stdout).toMatch(/^resolved .*:1:tool=2: effect absent, evidence portal-access-log#42$/m);
    const twice = cli('resolve', timedOut, '--effect', 'absent', '--evidence', 'portal-access-log#42', ...store);
    expect(twice.status).toBe(1);
    const completed = cli('resolve', `${INVOCATION(1)}:tool=1`, '--effect', 'happened', '--evidence', 'x', ...store);
    expect(completed.status).toBe(1);

    expect(cli('scheduler', 'restart', PARTICIPANT, ...store).status).toBe(0);
    const listed = json<{ status: string }[]>(cli('scheduler', 'list', ...store, '--json'));
    expect(listed).toEqual([expect.objectContaining({ status: 'running', unresolved_action_ids: [] })]);

    const audit = json<AuditJson>(cli('audit', ...store, '--json'));
    expect(audit.invocations[0]!.tool_actions[1]!.resolution).toMatchObject({ effect: 'absent', evidence_ref: 'portal-access-log#42' });

    const resumed = cli('run', SCENARIO, '--manifest', MANIFEST, ...store, '--json');
    expect(resumed.status).toBe(0);
    const summary = json<{ invocations: { invocation_action_instance_id: string; tool_actions: { settlement: string }[] }[] }>(resumed);
    expect(summary.invocations.map((i) => i.invocation_action_instance_id)).toEqual([INVOCATION(2)]);
    expect(json<AuditJson>(cli('audit', ...store, '--json')).sound).toBe(true);
  });

  // A data dir once held one episode and refused a second; the store now keeps each episode's streams
  // apart, so a second episode runs beside the first and each is audited on its own.
  it('runs a second episode beside the first in one data dir; audit takes one at a time', () => {
    const other = cli('run', SCENARIO, '--manifest', MANIFEST, ...store, '--episode', 'episode-other', '--json');
    expect(other.stderr).not.toMatch(/already holds/);
    expect(other.status).toBe(0);
    const summary = json<{ episode_id: string; invocations: { invocation_action_instance_id: string; recovered: boolean }[] }>(other);
    // The same scenario: the same invocation ids, in the other episode's own streams, from attempt 1.
    expect(summary).toMatchObject({ episode_id: 'episode-other' });
    expect(summary.invocations.map((i) => [i.invocation_action_instance_id, i.recovered])).toEqual([[INVOCATION(1), false]]);
    expect(existsSync(join(dataDir, 'jobs', 'episode-e2e.json'))).toBe(true);
    expect(existsSync(join(dataDir, 'jobs', 'episode-other.json'))).toBe(true);

    for (const episode of ['episode-e2e', 'episode-other']) {
      const audit = cli('audit', ...store, '--episode', episode, '--json');
      expect(audit.status).toBe(0);
      const report = json<AuditJson>(audit);
      expect(report.sound).toBe(true);
      expect(new Set(report.invocations.map((invocation) => invocation.episode_id))).toEqual(new Set([episode]));
    }
    const [e2e, second] = ['episode-e2e', 'episode-other'].map((episode) => json<AuditJson>(cli('audit', ...store, '--episode', episode, '--json')));
    expect(e2e!.invocations.map((i) => i.invocation_action_instance_id)).toEqual([INVOCATION(1), INVOCATION(2)]);
    expect(second!.invocations.map((i) => i.invocation_action_instance_id)).toEqual([INVOCATION(1)]);

    const unnamed = cli('audit', ...store);
    expect(unnamed.status).toBe(2);
    expect(unnamed.stdout).toBe('');
    expect(unnamed.stderr).toMatch(/^raes-tools audit: the store of .* holds 2 episodes: episode-e2e, episode-other; say which with --episode <id>$/m);
    for (const command of [['operations', 'get', INVOCATION(1)], ['scheduler', 'list'], ['recover'], ['export']]) {
      const refused = cli(...command, ...store);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/holds 2 episodes: episode-e2e, episode-other; say which with --episode/);
    }
    const again = cli('run', SCENARIO, '--manifest', MANIFEST, ...store);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/ran 2 episodes: episode-e2e, episode-other; say which to continue with --episode/);

    // One operation id, one operation in each episode.
    const inOther = json<{ operation: { episode_id: string; state: string; settlement: string } }>(cli('operations', 'get', INVOCATION(1), ...store, '--episode', 'episode-other', '--json'));
    expect(inOther.operation).toMatchObject({ episode_id: 'episode-other', state: 'settled' });
    expect(inOther.operation).toMatchObject({ episode_id: 'episode-other' });
    expect(json<{ operation: { episode_id: string } }>(cli('operations', 'get', INVOCATION(1), ...store, '--episode', 'episode-e2e', '--json')).operation).toMatchObject({ episode_id: 'episode-e2e' });
    expect(cli('operations', 'get', INVOCATION(2), ...store, '--episode', 'episode-other').status).toBe(1);
    const recovered = cli('recover', ...store, '--episode', 'episode-other', '--json');
    expect(recovered.status).toBe(0);
    expect(json(recovered)).toMatchObject({ episode_id: 'episode-other', recovered_invocations: [] });
  });
});

describe('raes-tools run on the memory store', () => {
  it('runs and summarizes in one process', () => {
    const run = cli('run', SCENARIO, '--manifest', MANIFEST, '--store', 'memory', '--ticks', '1', '--data-dir', scratchDir('memory'));
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^1 invocation, 3 tool actions: 2 completed, 0 withheld, 1 indeterminate$/m);
    // Nothing outlives the process, so the audit comes with the summary.
    expect(run.stdout).toMatch(/^Tool history: 1 closed invocation, 3 tool actions \(12 history events\), episode \S+$/m);
    expect(run.stdout).toMatch(/^Verification: sound, no findings/m);
  });
});

describe('raes-tools audit of a damaged history', () => {
  it('exits 1 with the findings, and a rebuild of the projection repairs the view', () => {
    const dataDir = scratchDir('findings');
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir).status).toBe(0);
    expect(cli('audit', '--data-dir', dataDir).status).toBe(0);

    // The history view indexes the closed invocation twice: its triples appear twice.
    const views = new BetterSqlite3(join(dataDir, 'views.sqlite'));
    views
      .prepare(
        'INSERT INTO participant_history_index (participant_address, episode_id, invocation_action_instance_id, closing_revision) ' +
          'SELECT participant_address, episode_id, invocation_action_instance_id, closing_revision FROM participant_history_index',
      )
      .run();
    views.close();

    const damaged = cli('audit', '--data-dir', dataDir);
    expect(damaged.status).toBe(1);
    expect(damaged.stdout).toMatch(/^Verification: \d+ findings?$/m);
    expect(damaged.stdout).toMatch(/^ {2}ordinal_not_contiguous: invocation .*:1 has admission ordinals \[1, 1, 2, 2, 3, 3\], expected 1 to 6 each once/m);
    expect(damaged.stdout).toMatch(/^ {2}triple_incomplete: the outer action of invocation .*:1 has events \[action_attempted, state_transition_recorded, observation_emitted, action_attempted, /m);
    const report = json<{ sound: boolean; findings: { code: string; action_instance_id: string | null }[] }>(cli('audit', '--data-dir', dataDir, '--json'));
    expect(report.sound).toBe(false);
    expect(report.findings).toContainEqual(
      expect.objectContaining({ code: 'ordinal_not_contiguous', invocation_action_instance_id: INVOCATION(1), action_instance_id: null }),
    );

    expect(cli('projections', 'rebuild', 'participant-history', '--data-dir', dataDir).status).toBe(0);
    expect(cli('audit', '--data-dir', dataDir).status).toBe(0);
  });

  it('exits 1 saying which invocation cannot be rendered and how to rebuild, when the view points past its stream', () => {
    const dataDir = scratchDir('unavailable');
    expect(cli('run', SCENARIO, '--manifest', MANIFEST, '--data-dir', dataDir, '--episode', EPISODE).status).toBe(0);
    expect(cli('audit', '--data-dir', dataDir).status).toBe(0);

    // The history view is an index into the store: its row now names a revision the stream never reached.
    const views = new BetterSqlite3(join(dataDir, 'views.sqlite'));
    expect(views.prepare('UPDATE participant_history_index SET closing_revision = closing_revision + 100').run().changes).toBe(1);
    views.close();

    for (const args of [[], ['--json'], ['--participant', PARTICIPANT]]) {
      const damaged = cli('audit', '--data-dir', dataDir, ...args);
      expect(damaged.status).toBe(1);
      // With --json, the failure is on stdout as JSON too.
      if (args[0] === '--json') expect(JSON.parse(damaged.stdout)).toEqual({ error: { exit: 1, message: damaged.stderr.trim() } });
      else expect(damaged.stdout).toBe('');
      expect(damaged.stderr).toMatch(
        new RegExp(
          `^raes-tools audit: the participant history cannot be rendered: the view says invocation ${escape(INVOCATION(1))} closed at revision \\d+ ` +
            `of stream '${escape(invocationStream(EPISODE, INVOCATION(1)))}', but the stream ends at revision \\d+; the view no longer matches the event store: ` +
            'rebuild it with `raes-tools projections rebuild participant-history`$',
          'm',
        ),
      );
    }

    expect(cli('projections', 'rebuild', 'participant-history', '--data-dir', dataDir).status).toBe(0);
    const repaired = cli('audit', '--data-dir', dataDir);
    expect(repaired.status).toBe(0);
    expect(repaired.stdout).toMatch(/^Verification: sound, no findings/m);
  });
});

const EPISODE = 'episode-unavailable';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
