import { MemoryEventStore } from '../../../adapters/event-store/memory/memory-event-store';
import { MemoryViews } from '../../../adapters/views/memory';
import { ProjectionRunner } from '../../../projections';
import { readSchedulerSnapshots, schedulerSnapshotsProjection } from '../../../projections/scheduler-snapshots';
import { schedulerStream } from '../../../domain/streams';
import { PARTICIPANT, POLICY } from '../../domain/application/support/world';

/**
 * Recovery restores its schedulers from these snapshots instead of folding their streams, so the
 * projection folds only events holding the members the scheduler's fold reads, as replay does.
 */

const STREAM = schedulerStream('episode-1', POLICY, PARTICIPANT);
const started = (attempt: number | string) => ({
  type: 'AttemptStarted',
  policy_address: POLICY,
  participant_address: PARTICIPANT,
  attempt,
  action_instance_id: `${POLICY}:${PARTICIPANT}:1`,
  action_contract_address: 'participant.action-contract.run-harness',
  tick: 1,
  observation_point: 'time.clock.shared@segment=0,tick=1',
  execution_generation: 0,
  at: '2026-04-11T10:00:00.000Z',
});

const caughtUp = async (attempt: number | string) => {
  const store = new MemoryEventStore();
  await store.append(STREAM, [{ id: 'a', type: 'AttemptStarted', data: started(attempt) }], { expectedRevision: 'no_stream' });
  const views = new MemoryViews();
  const result = await new ProjectionRunner({ store, views, projections: [schedulerSnapshotsProjection] }).catchUp();
  return { result, snapshots: readSchedulerSnapshots(views) };
};

describe('the scheduler snapshots projection', () => {
  it('keeps the state the scheduler folds from its events', async () => {
    const { result, snapshots } = await caughtUp(1);
    expect(result.kind).toBe('caught_up');
    expect(snapshots.get(STREAM)?.state.attemptsStarted).toBe(1);
  });

  it('fails on an event whose members the fold cannot take, and keeps no snapshot from it', async () => {
    const { result, snapshots } = await caughtUp('one');
    expect(result).toEqual(expect.objectContaining({ kind: 'projection_failed', projection: 'scheduler-snapshots', position: 1n }));
    expect(result.kind === 'projection_failed' && result.reason).toContain('expected a AttemptStarted event to hold attempt, action_instance_id and tick');
    expect(snapshots.size).toBe(0);
  });
});
