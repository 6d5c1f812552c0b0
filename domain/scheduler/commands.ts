import type { SchedulerPolicy } from './policy';
import type { AttemptOutcome } from './events';

export interface StartAttempt {
  readonly type: 'StartAttempt';
  readonly policy: SchedulerPolicy;
  readonly tick: number;
  readonly at: string;
}

export interface FinishAttempt {
  readonly type: 'FinishAttempt';
  readonly policy: SchedulerPolicy;
  readonly attempt: number;
  readonly outcome: AttemptOutcome;
  /** Tool actions of the invocation that settled indeterminate. */
  readonly indeterminate_action_ids: readonly string[];
  readonly at: string;
}

/** An operator resolved an indeterminate tool action (the invocation aggregate recorded how). */
export interface RecordResolution {
  readonly type: 'RecordResolution';
  readonly action_instance_id: string;
  readonly at: string;
}

export interface RestartScheduler {
  readonly type: 'RestartScheduler';
  readonly at: string;
}

export interface ResetSharedClock {
  readonly type: 'ResetSharedClock';
  readonly at: string;
}

export type SchedulerCommand = StartAttempt | FinishAttempt | RecordResolution | RestartScheduler | ResetSharedClock;
