import type { StopReason } from '../../domain/scheduler';
import type { ViewRows } from '../../domain/ports/views';

/**
 * Schedulers, one per policy and participant: running or stopped, with the action that stopped it and
 * the indeterminate tool actions an operator has yet to resolve. Shape: schemas/scheduler-status-v1.json.
 */
export interface SchedulerStatus {
  readonly policy_address: string;
  readonly participant_address: string;
  readonly status: 'running' | 'stopped';
  readonly stopped_by: {
    readonly reason: StopReason;
    readonly action_instance_id: string;
    readonly indeterminate_action_ids: readonly string[];
    readonly stopped_at: string;
  } | null;
  readonly unresolved_action_ids: readonly string[];
  readonly attempts_started: number;
  readonly execution_generation: number;
  readonly updated_at: string;
}

/** What the schedulers projection writes, and the lookup its fold needs. */
export interface SchedulersWrites extends ViewRows {
  /** The scheduler's status as last saved; undefined for a stream not seen yet. */
  status(stream: string): SchedulerStatus | undefined;
  /** Saves the status of the scheduler stream, which belongs to the episode. */
  save(stream: string, episodeId: string, status: SchedulerStatus): void;
}

export interface SchedulerFilter {
  readonly episode?: string;
  readonly participant?: string;
}

/** Whether a scheduler of `episodeId` is one the filter asks for (views kept in memory filter so; the SQLite view in SQL). */
export const matchesSchedulerFilter = (episodeId: string, status: SchedulerStatus, filter: SchedulerFilter): boolean =>
  (filter.episode === undefined || episodeId === filter.episode) && (filter.participant === undefined || status.participant_address === filter.participant);

/** What the scheduler queries read. */
export interface SchedulersReads {
  /** Every scheduler seen, by participant then policy; narrowed by the filter. */
  list(filter: SchedulerFilter): readonly SchedulerStatus[];
  /** Every episode with a scheduler, in the order each was first seen. */
  episodes(): readonly string[];
}
