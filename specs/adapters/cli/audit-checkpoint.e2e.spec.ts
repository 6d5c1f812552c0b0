import { cpSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ChainedEventStore } from '../../../adapters/event-store/chained-event-store';
import { schedulerAggregate } from '../../../domain/application';
import type { SchedulerCommand, SchedulerPolicy } from '../../../domain/scheduler';
import { openSqliteOrThrow } from '../event-store/sqlite/open-sqlite';
import { cli, json, scratchDir } from './support/cli';

jest.setTimeout(120_000);

/**
 * A scheduler records its state every 64 attempts, and a restart without the views starts from the
 * latest record: `audit` checks each record against the events before it, on a real SQLite file
 * written through the chain as the engine writes it, and names a record changed afterwards.
 */

type Finding = { code: string; position: string; stream: string; revision: string; message: string };
type AuditJson = { sound: boolean; integrity: { findings: Finding[] } };
type Row = { position: number; stream: string; revision: number; data: string };

const at = '2026-01-01T00:00:00.000Z';
const PARTICIPANT = 'participant.behavior.a';
const policy: SchedulerPolicy = {
  policy_address: 'participant.autonomous-execution.s',
  participant_address: PARTICIPANT,
  clock_address: 'time.clock.k',
  action_order: ['participant.action-contract.x'],
  start_tick: 0,
  cadence_ticks: 1,
  max_action_attempts: 1000,
  max_in_flight: 1,
  failure_policy: 'continue',
};

const original = scratchDir('audit-checkpoint');

const audit = (dir: string): { status: number | null; report: AuditJson } => {
  const run = cli('audit', '--data-dir', dir, '--json');
  return { status: run.status, report: json<AuditJson>(run) };
};

describe('raes-tools audit over scheduler checkpoints', () => {
  beforeAll(async () => {
    const store = new ChainedEventStore(openSqliteOrThrow(join(original, 'events.sqlite')));
    const scheduler = schedulerAggregate(store, 'episode-1', policy.policy_address, PARTICIPANT);
    const handled = async (command: SchedulerCommand): Promise<void> => {
      const result = await scheduler.handle(command);
      if (result.kind !== 'decided' || result.answer.kind !== 'accepted') throw new Error(`${command.type} was not accepted`);
    };
    for (let attempt = 1; attempt <= 140; attempt++) {
      await handled({ type: 'StartAttempt', policy, tick: attempt, at });
      await handled({ type: 'FinishAttempt', policy, attempt, outcome: 'succeeded', indeterminate_action_ids: [], at });
    }
    await store.close();
  });

  it('finds the scheduler\'s own checkpoints sound', () => {
    const { status, report } = audit(original);
    expect(report.integrity.findings).toEqual([]);
    expect(status).toBe(0);
  });

  it('names a checkpoint whose recorded state was changed, beside the broken chain', () => {
    const dir = scratchDir('audit-checkpoint-changed');
    cpSync(original, dir, { recursive: true });
    const db = new BetterSqlite3(join(dir, 'events.sqlite'));
    const checkpoints = db.prepare("SELECT position, stream, revision, data FROM events WHERE type = 'SchedulerCheckpointed' ORDER BY position").all() as Row[];
    expect(checkpoints).toHaveLength(2);
    const target = checkpoints[1]!;
    const data = JSON.parse(target.data) as { state: { attempts_started: number } };
    data.state.attempts_started = 200;
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify(data), target.position);
    db.close();
    const { status, report } = audit(dir);
    expect(status).toBe(1);
    expect(report.sound).toBe(false);
    expect(report.integrity.findings.map((finding) => [finding.code, finding.position, finding.stream])).toEqual([
      ['chain_digest_mismatch', String(target.position), target.stream],
      ['checkpoint_mismatch', String(target.position), target.stream],
    ]);
    expect(report.integrity.findings[1]!.message).toContain('records attempts_started 200 where the scheduler\'s events before it give 128');
  });
});
